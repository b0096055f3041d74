// DenseRegion: the co-occurrence cells of frequent words, as one array that
// every counting worker adds to.
//
// Stanford GloVe's layout: with ids as frequency ranks (a store's ids are
// ranks of its first ingest; words added later follow them), the cell
// (row, col) is dense when (row + 1) * (col + 1) <= max_product. Every pair
// that involves one very frequent word, and every pair of fairly frequent
// words, lands here - most of a Zipfian corpus's increments - at the cost of
// sum_r min(V, max_product / (r + 1)) cells. Row r's cells are contiguous.
//
// A symmetric region is for symmetric windows, which add the same to (a, b)
// and (b, a): it keeps each pair once, in the cell (min, max), so a pair
// costs one random add instead of two and the same memory covers about twice
// the products. Its rows hold only the columns at or above the row; (a, b)
// and (b, a) are both read from (min, max), and a diagonal cell holds both
// of its adds.
//
// Adds are deferred: each worker's Writer puts an add on its list for the
// add's partition (kPartitionCells consecutive cells), and a full list is
// applied in one pass over a part of the region small enough to stay in the
// core's cache. Added one at a time (with a prefetch), nearly every add
// missed the caches: wiki100M's counting at --threads 1 (window 15) took
// 8.6 s, and 6.4 s with lists (the runs are in this file's history).
//
// One region for all workers: a list is applied under its partition's
// lock, one lock for thousands of adds. Regions of their own (one per
// worker, summed at the commit) cost T times the cells' memory and page
// zeroing for the same products, and a pass summing them; a shared region
// with an atomic add per pair measured 2x slower (the lock-prefixed adds
// dominated counting).
//
// Thread-safety: Writers of one region may add from different threads at
// once; each Writer is used by one thread at a time. NewDrainStream, Zero
// and AppendKeySamples REQUIRE that no Writer holds deferred adds (every
// Writer Flush()ed since its last add).
#ifndef STREAMGLOVE_COOCCUR_DENSE_REGION_H_
#define STREAMGLOVE_COOCCUR_DENSE_REGION_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "cooccur/pair_run.h"
#include "util/large_array.h"
#include "util/mutex.h"

namespace streamglove {

class DenseRegion {
 public:
  class Writer;

  // The largest max_product whose region (its cells, row table, locks and
  // the lists of `writers` Writers: memory_bytes()) fits in `bytes`.
  static uint64_t MaxProductForBytes(uint32_t vocab_size, size_t bytes, bool symmetric,
                                     int writers);

  // `writers`: how many Writers will add to it (their lists' length).
  DenseRegion(uint32_t vocab_size, uint64_t max_product, bool symmetric, int writers);

  bool symmetric() const { return symmetric_; }
  bool Contains(uint32_t row, uint32_t col) const {
    return (uint64_t{row} + 1) * (uint64_t{col} + 1) <= max_product_;
  }

  // A stream of the non-zero cells with keys in [begin, end), in (row, col)
  // order. REQUIRES: the region outlives it and does not change while it is
  // read. Streams of any ranges may be read by different threads at once.
  std::unique_ptr<PairStream> NewDrainStream(uint64_t begin = 0, uint64_t end = UINT64_MAX) const;

  // Zeroes cells [first, last). Calls on disjoint ranges may run on
  // different threads.
  void Zero(uint64_t first, uint64_t last);

  // Appends (key, non-zero cells) samples that split the region's keys into
  // stretches of at most `cells_per_sample` keys, each keyed by its first,
  // in no order: the commit balances its key ranges with them. Reads every
  // cell, on the caller's TBB arena.
  void AppendKeySamples(uint64_t cells_per_sample,
                        std::vector<std::pair<uint64_t, uint64_t>>* samples) const;

  uint64_t max_product() const { return max_product_; }
  size_t cells() const { return cells_.size(); }
  // The cells, the row table, the locks and every Writer's lists.
  size_t memory_bytes() const;

 private:
  friend class DenseDrainStream;

  // The columns of key row `row`: keys (row, 0 .. Width(row) - 1) are dense.
  uint64_t Width(uint32_t row) const;
  // The keys' rows: every row at or past this one has no dense key.
  uint32_t KeyRows() const;
  // The index of (row, col)'s cell, for a symmetric region that of (min, max).
  uint64_t Index(uint32_t row, uint32_t col) const {
    if (symmetric_ && row > col) std::swap(row, col);
    return row_base_[row] + col;
  }
  // AppendKeySamples' samples of one row.
  void AppendRowSamples(uint32_t row, uint64_t cells_per_sample,
                        std::vector<std::pair<uint64_t, uint64_t>>* samples) const;
  // Applies a Writer's `n` deferred adds to `partition`, under its lock.
  void Apply(uint64_t partition, const uint64_t* adds, uint32_t n);
  // Adds at once (a value of 2^32 or more), under the cell's partition's lock.
  void AddNow(uint64_t cell, uint64_t value);

  // 16,384 cells (128 KiB) a partition: 8 and 32 thousand were no faster
  // in a replay of wiki100M's adds.
  static constexpr int kPartitionBits = 14;
  static constexpr uint64_t kPartitionCells = uint64_t{1} << kPartitionBits;

  uint32_t vocab_size_;
  uint64_t max_product_;
  bool symmetric_;
  int writers_;
  // The cell of (row, col) is cells_[row_base_[row] + col]: row r's cells
  // begin at column 0, or at column r in a symmetric region.
  std::vector<uint64_t> row_base_;
  LargeArray<uint64_t> cells_;
  // A Writer's list of deferred adds for one partition holds this many.
  uint64_t list_length_ = 0;
  // Partition p's lock guards cells [p * kPartitionCells, (p + 1) * ...).
  std::unique_ptr<Mutex[]> locks_;
  uint64_t partitions_ = 0;
};

// One worker's adds to a DenseRegion, deferred in lists by partition.
// Thread-safety: one thread at a time; Writers of a region run at once.
class DenseRegion::Writer {
 public:
  // REQUIRES: `region` outlives the Writer.
  explicit Writer(DenseRegion* region);

  bool Contains(uint32_t row, uint32_t col) const { return region_->Contains(row, col); }
  // Adds to (row, col). REQUIRES: Contains(row, col), !symmetric().
  void Add(uint32_t row, uint32_t col, uint64_t value) { Defer(region_->Index(row, col), value); }
  // Adds to (a, b) and to (b, a) (twice to (a, a)). REQUIRES: Contains(a, b).
  void AddBoth(uint32_t a, uint32_t b, uint64_t value) {
    if (region_->symmetric_) {
      Defer(region_->Index(a, b), a == b ? 2 * value : value);
    } else {
      Defer(region_->Index(a, b), value);
      Defer(region_->Index(b, a), value);
    }
  }
  // Applies every deferred add: after the last add of a batch.
  void Flush();

 private:
  // A deferred add is one word: (the cell's index in its partition) << 32 |
  // value. Values of 2^32 or more (none in a window of 20 or less: its
  // largest weight is lcm(1..20) units) are added at once.
  void Defer(uint64_t cell, uint64_t value) {
    if (value > UINT32_MAX) return region_->AddNow(cell, value);
    const uint64_t partition = cell >> kPartitionBits;
    uint32_t& count = count_[partition];
    lists_[partition * list_length_ + count] = (cell & (kPartitionCells - 1)) << 32 | value;
    if (++count == list_length_) ApplyList(partition);
  }
  void ApplyList(uint64_t partition);

  DenseRegion* const region_;
  const uint64_t list_length_;
  // Partition p's deferred adds are lists_[p * list_length_ ..], the first
  // count_[p] of them.
  LargeArray<uint64_t> lists_;
  std::vector<uint32_t> count_;
};

}  // namespace streamglove

#endif  // STREAMGLOVE_COOCCUR_DENSE_REGION_H_
