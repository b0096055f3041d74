// The block stream: a store's non-zero pairs as shuffled blocks on disk.
//
// Built in one pass over the store: each pair (both ids below the vocabulary
// cut) goes to a uniformly random block file, so every block is a random
// sample of the matrix; a block is a sequence of 12-byte records
// {uint32 row, uint32 col, float32 count}, little-endian. STORE/blocks/MANIFEST
// records the store stamp and vocabulary cut it was built for, and each
// block's record count and CRC-32; a stream whose manifest does not match is
// rebuilt, and a block whose records do not match it is an error when read.
// See docs/formats.md.
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

struct BlockStreamInfo {
  std::string dir;
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
// blocks are much larger, or compressed otherwise than `compression` asks, is rebuilt). kAuto
// compresses when the stream, estimated from the store's size, exceeds half the memory available
// for the page cache; compressed blocks are written compressed (a zstd frame per 32 KiB of
// records), never raw first. Memory: two 32 KiB buffers per block (at most 1024 blocks) and one
// compressor.
Status OpenBlockStream(Store* store, const std::string& dir, const RankedVocab& vocab,
                       size_t block_bytes, BlockCompression compression, BlockStreamInfo* info);

// A part of the stream as BlockReader hands it out: pairs grouped in
// buckets, bucket k being pairs[bucket_begin[k], bucket_begin[k + 1]). Each
// bucket is a uniformly random sample of the part (every pair was sent to a
// uniformly drawn bucket: the first pass of Rao and Sandelius' shuffle), but
// its order within is not yet random, and its pairs may still be stored
// records: PrepareBucket() makes a bucket ready to train, and on every bucket
// it makes the whole part a uniformly random order of training pairs.
// Trainers call it on their own threads, just before training the bucket,
// while it sits in their cache, so the one read-ahead thread only reads and
// scatters, and the conversion and shuffle scale with the trainers.
struct BlockPart {
  std::vector<TrainingPair> pairs;
  std::vector<size_t> bucket_begin;  // buckets() + 1 offsets into pairs
  uint64_t records = 0;              // the stored records the part stands for
  // Unit updates: copies drawn per stored record so far in the pass. A
  // part's own pairs per record differ from it while heavy pairs' copies are
  // spread over later parts, so this is what converts a rate of updates to
  // one of records.
  double updates_per_record = 1;
  // The read-ahead thread's wall time reading and preparing the part (with
  // the trainers running beside it): what the reader costs per part.
  double read_seconds = 0;
  // The pairs are stored records, {row, col, count} in {row, col, weight},
  // neither converted nor shuffled within their buckets (a block); otherwise
  // the part is ready as it is (unit updates, shuffled whole by the reader).
  bool unconverted = false;
  size_t buckets() const { return bucket_begin.empty() ? 0 : bucket_begin.size() - 1; }
};

// The second pass: bucket k of an unconverted part converted with
// `transform` and put in a uniformly random order drawn from `seed`; a part
// that is not unconverted is left as it is.
// Buckets may be prepared on several threads at once.
void PrepareBucket(BlockPart* part, size_t k, const PairTransform& transform, uint64_t seed);

// Records per bucket: 256 KiB of TrainingPairs, so a bucket is shuffled
// within a core's L2 cache, and a block of 20 M records scatters into ~1,200
// write streams.
inline constexpr size_t kBucketRecords = size_t{1} << 14;

// A pair with at least this many copies has them spread over the parts left
// (BlockReader); fewer stay in the part that reads the pair.
inline constexpr uint64_t kSpreadMinCopies = 4;

// Reads blocks in a given order, one part ahead of the consumer: on its own
// thread it reads the next part and scatters it into buckets, drawing from
// shuffle_seeds[i] for the i-th block read, so the stream is reproducible. A
// part is one block (unconverted), or with transform->unit_updates (which
// must outlive the reader) the next (largest block's records / 2) unit
// updates of the stream, converted, shuffled whole and cut into buckets of
// bucket_records. A pair of kSpreadMinCopies or more copies does not put
// them all in the part that reads it: each part takes a binomial share of
// its copies still due (1 / the parts estimated left), so they spread over
// the rest of the pass as word2vec's over the text. Measured (docs/
// benchmarks.md): with all copies in one part, training loss rose as the
// learning rate fell once a pass had more than a few parts, and vectors got
// worse with a smaller --memory. Memory stays at most that of two whole
// blocks as TrainingPairs (one block as records, two parts and the pairs
// with copies due, at most a sixth of a block of them; beyond that a pair's
// copies stay in its part), and a block is read in chunks of 64 Ki records.
class BlockReader {
 public:
  // With `scatter_arena` (nullable; it must outlive the reader), a block
  // stored raw is read and scattered on its threads, in segments that land
  // exactly where one thread would put them.
  BlockReader(const BlockStreamInfo* info, std::vector<uint32_t> order,
              std::vector<uint64_t> shuffle_seeds, const PairTransform* transform,
              size_t bucket_records = kBucketRecords, tbb::task_arena* scatter_arena = nullptr);
  ~BlockReader();
  // Fills *part with the next part; *done after the last (part then empty).
  Status Next(BlockPart* part, bool* done);
  // After Next(): whether the part it returned was the last, so that a
  // consumer can start the reader of what follows before training it.
  bool exhausted() const { return exhausted_; }

 private:
  // Prefetches the next part, timed; what it throws becomes ahead_status_.
  void Prefetch();
  void PrefetchPart();
  // Reads block order_[next_] into *to, each record made a T by `make` and
  // sent to a uniformly drawn bucket of about bucket_records_ (bucket k is
  // (*to)[(*bucket_begin)[k], (*bucket_begin)[k + 1])).
  template <typename T, typename Make>
  Status ScatterBlock(std::vector<T>* to, std::vector<size_t>* bucket_begin, Make make);
  // Reads records [first, end) of a raw block (sized `records`) from their
  // offset in the file, calling place(i, record) for each in order; *crc
  // gets their CRC.
  template <typename Place>
  Status ReadRawSegment(const std::string& path, size_t records, size_t first, size_t end,
                        size_t chunk_records, uint32_t* crc, Place place) const;
  // fn(s) for s = 0 to segments - 1, on the scatter arena's threads when
  // there are several; the first error.
  template <typename Fn>
  Status ForEachSegment(size_t segments, Fn fn);
  // One block, scattered into buckets, not yet converted.
  void PrefetchBlock();
  // The next part of unit updates.
  void PrefetchUnitUpdates();
  // Nothing more is read: the buffers are freed, so that the reader opened
  // next has their memory (the consumer's part aside, two blocks at most).
  void ReleaseBuffers();
  // Whether a block or a pair's copies are left to read.
  bool MoreToRead() const {
    return next_ < order_.size() || block_next_ < block_.size() || pending_copies_ > 0 ||
           !due_.empty();
  }
  // Moves into *part a binomial share (probability `share`) of each pair's
  // copies still due, up to part_updates_ in all.
  void TakeDueCopies(double share, std::vector<TrainingPair>* part);

  const BlockStreamInfo* info_;
  const std::vector<uint32_t> order_;
  const std::vector<uint64_t> shuffle_seeds_;
  const PairTransform* const transform_;
  const size_t bucket_records_;
  tbb::task_arena* const scatter_arena_;
  size_t next_ = 0;  // in order_: the next block to read
  bool exhausted_ = false;
  std::thread prefetch_;
  BlockPart ahead_;
  Status ahead_status_;
  std::vector<PairRecord32> chunk_;  // a block's records being scattered
  // unit_updates: the block being expanded (shuffled), how far, and the
  // copies of its last converted pair still to emit.
  size_t part_updates_ = 0;
  std::vector<PairRecord32> block_;
  size_t block_next_ = 0;
  TrainingPair pending_{};
  uint64_t pending_copies_ = 0;
  // Heavy pairs' copies due in later parts, at most due_capacity_ pairs.
  struct DueCopies {
    TrainingPair pair;
    uint64_t copies;
  };
  std::vector<DueCopies> due_;
  size_t due_capacity_ = 0;
  uint64_t records_left_ = 0;   // stored records not yet converted
  uint64_t records_read_ = 0;   // and converted
  uint64_t updates_drawn_ = 0;  // the copies drawn for those
  std::mt19937_64 rng_;
};

}  // namespace streamglove

#endif  // STREAMGLOVE_TRAIN_BLOCK_STREAM_H_
