// Pair runs: sorted, combined co-occurrence records spilled to a file, and
// the k-way merge of sorted pair streams.
//
// A run is a transient file of one batch (removed once the batch commits) of
// records varint(key delta) | varint(value), keys strictly ascending. See
// docs/formats.md.
//
// Thread-safety: writers, readers and streams are used by one thread each.
#ifndef STREAMGLOVE_COOCCUR_PAIR_RUN_H_
#define STREAMGLOVE_COOCCUR_PAIR_RUN_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "cooccur/pair_buffer.h"
#include "streamglove/status.h"
#include "util/file.h"

namespace streamglove {

// REQUIRES: `records` sorted by key, keys distinct.
Status WritePairRun(const std::string& path, std::span<const PairRecord> records);

// A source of records in strictly ascending key order.
class PairStream {
 public:
  virtual ~PairStream() = default;
  // Sets *done at the end.
  virtual Status Next(PairRecord* record, bool* done) = 0;
};

std::unique_ptr<PairStream> NewPairRunReader(const std::string& path);
// Streams sorted in-memory records; `records` must outlive the stream.
std::unique_ptr<PairStream> NewPairSpanStream(std::span<const PairRecord> records);

class BatchRuns;

// While there are more than `fan_in` runs, merges groups of `fan_in` of them
// into new runs (named by `runs`), deleting the inputs; so a batch's final
// merge never opens more than fan_in run files at once.
Status ReduceRuns(std::vector<std::string>* paths, size_t fan_in, BatchRuns* runs);

// Merges the streams, summing equal keys, and calls emit in key order.
Status MergePairStreams(std::vector<std::unique_ptr<PairStream>> streams,
                        const std::function<Status(const PairRecord&)>& emit);

}  // namespace streamglove

#endif  // STREAMGLOVE_COOCCUR_PAIR_RUN_H_
