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
#include <random>
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

// How an objective trains stored records: `convert` turns a record into its
// TrainingPair. With `unit_updates` the pair's weight is a number of updates
// (SGNS): the reader turns a pair of weight x into floor(x) or ceil(x) copies
// of weight 1 (stochastic rounding, mean x) and shuffles them among the
// others, so a frequent pair's updates are spread over millions of others,
// as word2vec's are over the text, instead of running back to back.
struct PairTransform {
  std::function<TrainingPair(const PairRecord32&)> convert;
  bool unit_updates = false;
};

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
// rebuilt). kAuto compresses when the stream, estimated from the store's size,
// exceeds half the memory available for the page cache; compressed blocks are
// written compressed (a zstd frame per 32 KiB of records), never raw first.
// Memory: a 32 KiB buffer per block (two when compressing; at most 1024
// blocks) and one compressor.
Status OpenBlockStream(Store* store, const std::string& dir, uint32_t vocab, size_t block_bytes,
                       BlockCompression compression, BlockStreamInfo* info);

// Reads blocks in a given order, one part ahead of the consumer: on its own
// thread it reads, converts with *transform (which must outlive the reader)
// and shuffles the next part, seeded by shuffle_seeds[i] for the i-th block
// read, so the order is reproducible. A part is one block, or with
// transform->unit_updates the next (largest block's records / 2) unit updates
// of the stream: memory stays at most that of two whole blocks as
// TrainingPairs (one block as records plus two parts).
class BlockReader {
 public:
  BlockReader(const BlockStreamInfo* info, std::vector<uint32_t> order, std::vector<uint64_t> shuffle_seeds,
              const PairTransform* transform);
  ~BlockReader();
  // Fills *pairs with the next part and *records with the number of stored
  // records it stands for; *done after the last.
  Status Next(std::vector<TrainingPair>* pairs, uint64_t* records, bool* done);

 private:
  void Prefetch();
  // Reads block order_[next_]'s n records into `to` (n * 12 bytes).
  Status ReadBlock(char* to, size_t n);
  // One block, converted and shuffled.
  void PrefetchBlock();
  // The next part of unit updates.
  void PrefetchUnitUpdates();

  const BlockStreamInfo* info_;
  const std::vector<uint32_t> order_;
  const std::vector<uint64_t> shuffle_seeds_;
  const PairTransform* const transform_;
  size_t next_ = 0;  // in order_: the next block to read
  std::thread prefetch_;
  std::vector<TrainingPair> ahead_;
  uint64_t ahead_records_ = 0;
  Status ahead_status_;
  // unit_updates: the block being expanded (shuffled), how far, and the
  // copies of its last converted pair still to emit.
  size_t part_updates_ = 0;
  std::vector<PairRecord32> block_;
  size_t block_next_ = 0;
  TrainingPair pending_{};
  uint64_t pending_copies_ = 0;
  std::mt19937_64 rng_;
};

}  // namespace streamglove

#endif  // STREAMGLOVE_TRAIN_BLOCK_STREAM_H_
