// DenseRegion: the co-occurrence cells of frequent words, as one array.
//
// Stanford GloVe's layout: with ids as frequency ranks (a store's ids are
// ranks of its first ingest; words added later follow them), the cell
// (row, col) is dense when (row + 1) * (col + 1) <= max_product. Every pair that involves
// one very frequent word, and every pair of fairly frequent words, lands here
// - most of a Zipfian corpus's increments - at the cost of
// sum_r min(V, max_product / (r + 1)) cells. Row r's cells are contiguous, so
// draining in (row, col) order is a linear scan.
//
// Thread-safety: not thread-safe; each counting worker owns one (a shared
// region with atomic adds measured 2x slower: the lock-prefixed adds
// dominated counting). Workers' regions are merged when a batch commits.
#ifndef STREAMGLOVE_COOCCUR_DENSE_REGION_H_
#define STREAMGLOVE_COOCCUR_DENSE_REGION_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "cooccur/pair_run.h"
#include "util/large_array.h"

namespace streamglove {

class DenseRegion {
 public:
  // The largest max_product whose cells fit in `bytes`.
  static uint64_t MaxProductForBytes(uint32_t vocab_size, size_t bytes);

  DenseRegion(uint32_t vocab_size, uint64_t max_product);

  bool Contains(uint32_t row, uint32_t col) const {
    return (uint64_t{row} + 1) * (uint64_t{col} + 1) <= max_product_;
  }
  // Starts loading the cell's cache line, if the cell is in the region.
  void Prefetch(uint32_t row, uint32_t col) const {
    if (Contains(row, col)) __builtin_prefetch(cells_.data() + offsets_[row] + col, /*rw=*/1);
  }
  // REQUIRES: Contains(row, col).
  void Add(uint32_t row, uint32_t col, uint64_t value) { cells_[offsets_[row] + col] += value; }

  // A stream of the non-zero cells with keys in [begin, end), in (row, col)
  // order, that zeroes each cell it returns, leaving that range empty once
  // read to the end. REQUIRES: the region outlives it. Streams of disjoint
  // ranges may be read by different threads at once.
  std::unique_ptr<PairStream> NewDrainStream(uint64_t begin = 0, uint64_t end = UINT64_MAX);

  // Adds the cells of `other` with keys in [begin, end) to this region's and
  // zeroes them in `other`. REQUIRES: the same vocabulary size and
  // max_product. Calls on disjoint ranges may run on different threads.
  void Absorb(DenseRegion* other, uint64_t begin, uint64_t end);

  // Appends (key, non-zero cells) samples that split the region into
  // stretches of at most `cells_per_sample` cells, each keyed by its first
  // cell: the commit balances its key ranges with them. Reads every cell.
  void AppendKeySamples(uint64_t cells_per_sample,
                        std::vector<std::pair<uint64_t, uint64_t>>* samples) const;

  uint64_t max_product() const { return max_product_; }
  size_t cells() const { return cells_.size(); }
  size_t memory_bytes() const { return cells_.size() * 8 + offsets_.size() * 8; }

 private:
  // The index of the first cell whose key is >= key.
  uint64_t CellAt(uint64_t key) const;

  uint64_t max_product_;
  friend class DenseDrainStream;
  std::vector<uint64_t> offsets_;  // row r's cells: [offsets_[r], offsets_[r + 1])
  LargeArray<uint64_t> cells_;
};

}  // namespace streamglove

#endif  // STREAMGLOVE_COOCCUR_DENSE_REGION_H_
