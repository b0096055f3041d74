// BlockReader: an epoch's read of the block stream (block_stream.h), one
// part ahead of the trainers, scattered into buckets that PrepareBucket
// makes ready to train.
//
// Thread-safety: BlockReader's read-ahead runs on its own thread; the other
// calls are made from one thread. PrepareBucket may run on several threads
// at once, on different buckets.
#ifndef STREAMGLOVE_TRAIN_BLOCK_READER_H_
#define STREAMGLOVE_TRAIN_BLOCK_READER_H_

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <tbb/task_arena.h>

#include "streamglove/status.h"
#include "train/block_stream.h"

namespace streamglove {

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
  // Tiles: bucket k's column part, which skip-gram draws its noise words
  // from (RangeContext::noise_part); empty: from every word.
  std::vector<uint32_t> bucket_noise_part;
  size_t buckets() const { return bucket_begin.empty() ? 0 : bucket_begin.size() - 1; }
};

// The second pass: bucket k of an unconverted part converted with
// `transform` and put in a uniformly random order drawn from `seed`; a part
// that is not unconverted is left as it is.
// Buckets may be prepared on several threads at once.
void PrepareBucket(BlockPart* part, size_t k, const PairTransform& transform, uint64_t seed);

// An epoch's parts, read one ahead of the trainers: BlockReader (random
// blocks, here) or TileReader (rounds of tiles, train/tile_reader.h).
class PartReader {
 public:
  virtual ~PartReader() = default;
  // Fills *part with the next part; *done after the last (part then empty).
  virtual Status Next(BlockPart* part, bool* done) = 0;
  // After Next(): whether the part it returned was the last, so that a
  // consumer can start the reader of what follows before training it.
  virtual bool exhausted() const = 0;
};

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
class BlockReader final : public PartReader {
 public:
  // With `scatter_arena` (nullable; it must outlive the reader), a block
  // stored raw is read and scattered on its threads, in segments that land
  // exactly where one thread would put them.
  BlockReader(const BlockStreamInfo* info, std::vector<uint32_t> order,
              std::vector<uint64_t> shuffle_seeds, const PairTransform* transform,
              size_t bucket_records = kBucketRecords, tbb::task_arena* scatter_arena = nullptr);
  ~BlockReader() override;
  Status Next(BlockPart* part, bool* done) override;
  bool exhausted() const override { return exhausted_; }

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

#endif  // STREAMGLOVE_TRAIN_BLOCK_READER_H_
