// Checkpoint files: a model's float arrays between a small header (magic,
// vocab, dim, epochs done, options hash, words hash; little-endian) and a
// CRC-32 of all before it, so a damaged checkpoint is refused, never resumed.
// See docs/formats.md.
//
// Thread-safety: plain functions; a file is written by one at a time.
#ifndef STREAMGLOVE_TRAIN_CHECKPOINT_H_
#define STREAMGLOVE_TRAIN_CHECKPOINT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "streamglove/status.h"
#include "util/large_array.h"

namespace streamglove {

// The words a checkpoint's rows belong to, in row order, as one hash: a
// checkpoint states them, so that rows are never read as other words'.
class WordsHash {
 public:
  void Add(std::string_view word);
  uint64_t value() const { return hash_; }

 private:
  uint64_t hash_ = 0x5347574f524453ull;  // "SGWORDS"
};

// What a checkpoint is of besides its shape: the run's hyperparameters (a
// hash: only an equal run resumes it) and its rows' words (WordsHash).
struct CheckpointStamp {
  uint64_t options_hash = 0;
  uint64_t words_hash = 0;
};

// Writes the arrays atomically (a crash leaves the previous checkpoint).
Status SaveCheckpoint(const std::string& path, uint32_t vocab, uint32_t dim, uint32_t epochs_done,
                      const CheckpointStamp& stamp,
                      const std::vector<const LargeArray<float>*>& arrays);

// Fills the arrays (sized by the caller) from a checkpoint of the same vocab,
// dim and stamp; anything else is an error naming the file: damage (a
// checksum that does not match, a truncated file) first, then an intact
// checkpoint of another run. (A checkpoint of format 02 states no words:
// only its options hash is compared.) On error the arrays may hold part of
// the file.
Status LoadCheckpoint(const std::string& path, uint32_t vocab, uint32_t dim,
                      const CheckpointStamp& stamp, const std::vector<LargeArray<float>*>& arrays,
                      uint32_t* epochs_done);

// Row `rows[r]` of every array takes row r of the checkpoint's (skipped:
// kNotCopied), whatever the run it came from, so that a run on a grown
// vocabulary starts where an earlier one ended (train --warm-start). The
// checkpoint must have `dim`, rows.size() rows and as many arrays (the same
// objective), and its rows must be the words hashed as `words_hash` (a
// checkpoint of format 02 states none); it is checksummed whole before any
// row is copied. The arrays that are no words' rows (a subword model's
// n-gram rows), which follow the rows' arrays in the checkpoint, are
// copied whole into `whole_arrays`, which must be their size.
inline constexpr uint32_t kNotCopied = UINT32_MAX;
Status LoadCheckpointRows(const std::string& path, uint32_t dim, uint64_t words_hash,
                          const std::vector<uint32_t>& rows,
                          const std::vector<LargeArray<float>*>& arrays,
                          const std::vector<LargeArray<float>*>& whole_arrays);

}  // namespace streamglove

#endif  // STREAMGLOVE_TRAIN_CHECKPOINT_H_
