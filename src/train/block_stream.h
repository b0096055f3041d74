// The block stream: a store's non-zero pairs as shuffled blocks on disk.
//
// Built in one pass over the store: each pair (both ids below the vocabulary
// cut) goes to a uniformly random block file, so every block is a random
// sample of the matrix, or, laid out as tiles (train/tile_schedule.h), to the
// block of its tile; a block is a sequence of 12-byte records
// {uint32 row, uint32 col, float32 count}, little-endian. STORE/blocks/MANIFEST
// records the store stamp and vocabulary cut it was built for, and each
// block's record count and CRC-32; a stream whose manifest does not match is
// rebuilt, and a block whose records do not match it is an error when read.
// See docs/formats.md.
//
// Reading it: block_reader.h.
//
// Thread-safety: the calls are made from one thread.
#ifndef STREAMGLOVE_TRAIN_BLOCK_STREAM_H_
#define STREAMGLOVE_TRAIN_BLOCK_STREAM_H_

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <tbb/task_arena.h>

#include "store/ranked_vocab.h"
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

// How pairs are dealt to blocks: at random (trained by Hogwild threads or a
// device), or by tile (trained round by round, no row shared between
// workers: train/tile_schedule.h).
enum class BlockLayout { kRandom, kTiles };

struct BlockStreamInfo {
  std::string dir;
  // Tiles: the parts P (block r * P + c is tile (r, c)); 0: random blocks.
  uint32_t tile_parts = 0;
  bool compressed = false;  // block files are zstd frames (block-NNNNN.zst)
  uint32_t vocab = 0;       // the ranks below this are kept (RankedVocab)
  uint64_t pairs = 0;
  std::vector<uint64_t> block_records;
  std::vector<uint32_t> block_crcs;  // CRC-32 of each block's records (12-byte, uncompressed)
  bool built = false;                // built by this call (else reused)
};

// The block stream's folder inside a store directory. The store counts only
// the files directly in its directory as its own (Store::SizeOnDisk).
inline constexpr char kBlockStreamDir[] = "blocks";
// Beside the folder: a training holds it (FileLock) from before it opens
// the block stream until it ends, since a second training of the store
// would rebuild the blocks under the first.
inline constexpr char kBlockStreamLockFile[] = "LOCK.blocks";

// Block i's file.
std::string BlockPath(const BlockStreamInfo& info, size_t i);

// A stamp of the store's contents: changes whenever a batch commits.
std::string StoreStamp(Store* store);

// Opens or (re)builds the block stream of `store` in `dir` for the words of
// `vocab` (records hold their ranks), with blocks of about `block_bytes` (an existing stream whose
// blocks are much larger, laid out or compressed otherwise than `layout` and `compression` ask,
// is rebuilt). Tiles: P is the fewest parts (ChooseTileParts) whose rounds hold about
// `block_bytes`; a stream too large for any is laid out at random (info->tile_parts 0). kAuto
// compresses when the stream, estimated from the store's size, exceeds half the memory available
// for the page cache; compressed blocks are written compressed (a zstd frame per write buffer of
// records), never raw first. Memory: two write buffers per block, 32 KiB each or as many as 8 MiB
// hold (4 KiB at the least: 1024 tiles), and one compressor.
Status OpenBlockStream(Store* store, const std::string& dir, const RankedVocab& vocab,
                       size_t block_bytes, BlockLayout layout, BlockCompression compression,
                       BlockStreamInfo* info);

}  // namespace streamglove

#endif  // STREAMGLOVE_TRAIN_BLOCK_STREAM_H_
