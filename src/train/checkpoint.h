// Checkpoint files: a model's float arrays between a small header (magic,
// vocab, dim, epochs done, options hash; little-endian) and a CRC-32 of all
// before it, so a damaged checkpoint is refused, never resumed. See
// docs/formats.md.
#ifndef STREAMGLOVE_TRAIN_CHECKPOINT_H_
#define STREAMGLOVE_TRAIN_CHECKPOINT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "streamglove/status.h"
#include "util/large_array.h"

namespace streamglove {

// Writes the arrays atomically (a crash leaves the previous checkpoint).
Status SaveCheckpoint(const std::string& path, uint32_t vocab, uint32_t dim, uint32_t epochs_done,
                      uint64_t options_hash, const std::vector<const LargeArray<float>*>& arrays);

// Fills the arrays (sized by the caller) from a checkpoint of the same vocab,
// dim and options hash; anything else is an error naming the file: damage
// (a checksum that does not match, a truncated file) first, then an intact
// checkpoint of another run. On error the arrays may hold part of the file.
Status LoadCheckpoint(const std::string& path, uint32_t vocab, uint32_t dim, uint64_t options_hash,
                      const std::vector<LargeArray<float>*>& arrays, uint32_t* epochs_done);

// Row `rows[r]` of every array takes row r of the checkpoint's (skipped:
// kNotCopied), whatever the run it came from, so that a run on a grown
// vocabulary starts where an earlier one ended (train --warm-start). The
// checkpoint must have `dim`, rows.size() rows and as many arrays (the same
// objective); it is checksummed whole before any row is copied.
inline constexpr uint32_t kNotCopied = UINT32_MAX;
Status LoadCheckpointRows(const std::string& path, uint32_t dim, const std::vector<uint32_t>& rows,
                          const std::vector<LargeArray<float>*>& arrays);

}  // namespace streamglove

#endif  // STREAMGLOVE_TRAIN_CHECKPOINT_H_
