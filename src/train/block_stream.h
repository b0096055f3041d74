// The block stream: a store's non-zero pairs as shuffled blocks on disk.
//
// Built in one pass over the store: each pair (both ids below the vocabulary
// cut) goes to a uniformly random block file, so every block is a random
// sample of the matrix; a block is a sequence of 12-byte records
// {uint32 row, uint32 col, float32 count}, little-endian. STORE/blocks/MANIFEST
// records the store stamp and vocabulary cut it was built for; a stream whose
// manifest does not match is rebuilt. See docs/formats.md.
//
// Thread-safety: BlockReader's read-ahead runs on its own thread; the other
// calls are made from one thread.
#ifndef STREAMGLOVE_TRAIN_BLOCK_STREAM_H_
#define STREAMGLOVE_TRAIN_BLOCK_STREAM_H_

#include <cstdint>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "store/store.h"
#include "streamglove/status.h"
#include "streamglove/train.h"

namespace streamglove {

struct PairRecord32 {
  uint32_t row;
  uint32_t col;
  float count;
};
static_assert(sizeof(PairRecord32) == 12);

// A pair ready for training, its objective's figures computed once per block
// read (off the training threads), not per update.
struct TrainingPair {
  uint32_t row;
  uint32_t col;
  float log_count;  // GloVe: log x
  float weight;     // GloVe: f(x) = min(1, (x / x_max)^alpha); SGNS: expected positive updates
};

// Turns a stored record into the objective's TrainingPair.
using PairTransform = std::function<TrainingPair(const PairRecord32&)>;

struct BlockStreamInfo {
  std::string dir;
  bool compressed = false; // block files are zstd frames (block-NNNNN.zst)
  uint32_t vocab = 0;      // ids below this are kept
  uint64_t pairs = 0;
  std::vector<uint64_t> block_records;
  bool built = false;      // built by this call (else reused)
};

// Block i's file.
std::string BlockPath(const BlockStreamInfo& info, size_t i);

// A stamp of the store's contents: changes whenever a batch commits.
std::string StoreStamp(Store* store);

// Opens or (re)builds the block stream of `store` in `dir` for the ids below
// `vocab`, with blocks of about `block_bytes` (an existing stream whose blocks
// are much larger, or compressed otherwise than `compression` asks, is
// rebuilt). kAuto compresses when the stream exceeds half the memory
// available for the page cache. Memory: one write buffer per block (at most
// 1024 blocks), then a streaming compressor per thread.
Status OpenBlockStream(Store* store, const std::string& dir, uint32_t vocab, size_t block_bytes,
                       BlockCompression compression, BlockStreamInfo* info);

// Reads blocks in a given order, one ahead of the consumer: on its own thread
// it reads the next block, converts it to TrainingPairs with *transform (which
// must outlive the reader)
// and shuffles it (seeded by shuffle_seeds[i] for the i-th block read, so the
// order is reproducible).
class BlockReader {
 public:
  BlockReader(const BlockStreamInfo* info, std::vector<uint32_t> order, std::vector<uint64_t> shuffle_seeds,
              const PairTransform* transform);
  ~BlockReader();
  // Fills *pairs with the next block; *done after the last.
  Status Next(std::vector<TrainingPair>* pairs, bool* done);

 private:
  void Prefetch();
  const BlockStreamInfo* info_;
  const std::vector<uint32_t> order_;
  const std::vector<uint64_t> shuffle_seeds_;
  const PairTransform* const transform_;
  size_t next_ = 0;
  std::thread prefetch_;
  std::vector<TrainingPair> ahead_;
  Status ahead_status_;
};

}  // namespace streamglove

#endif  // STREAMGLOVE_TRAIN_BLOCK_STREAM_H_
