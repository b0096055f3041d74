// Run slices: the parts of a rank's sorted pair runs that hold an owner's
// rows, and their encoding as ranks send them to their owners (the
// distributed ingest's exchange: the runs stay where they were written, and
// each owner reads its slices of every rank's runs).
//
// Thread-safety: plain functions of their arguments.
#ifndef STREAMGLOVE_COOCCUR_DISTRIBUTED_RUN_SLICES_H_
#define STREAMGLOVE_COOCCUR_DISTRIBUTED_RUN_SLICES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "cooccur/pair_run.h"
#include "streamglove/status.h"

namespace streamglove {

// The part of `run` that holds the keys [begin, end): the run's groups from
// the last one starting at or before `begin` to the last one starting
// before `end` (a reader with the key range skips the edges' other
// records); its records are counted from its first group. No groups when
// the run holds none of those keys.
PairRun RunSlice(const PairRun& run, uint64_t begin, uint64_t end);

// A slice's bytes in its run file: from its first group to the next group
// after its last, or the file's end (0 if the file's size cannot be read).
// REQUIRES: slice.groups not empty.
uint64_t SliceBytes(const PairRun& run, const PairRun& slice);

// Slices as a rank sends them to their owner: varint(slices) | (path |
// varint(records) | varint(groups) | (varint(key) varint(offset))...)...
void EncodeSlices(const std::vector<PairRun>& slices, std::string* text);
// Appends the slices of `text` to *slices; Corruption if it is malformed.
Status DecodeSlices(const std::string& text, std::vector<PairRun>* slices);

}  // namespace streamglove

#endif  // STREAMGLOVE_COOCCUR_DISTRIBUTED_RUN_SLICES_H_
