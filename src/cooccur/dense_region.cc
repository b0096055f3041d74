#include "cooccur/dense_region.h"

#include <algorithm>
#include <cstring>

#include <tbb/blocked_range.h>
#include <tbb/combinable.h>
#include <tbb/parallel_for.h>

namespace streamglove {

namespace {

// Key row r's dense columns: 0 .. min(V, max_product / (r + 1)) - 1.
uint64_t RowWidth(uint32_t vocab_size, uint64_t max_product, uint64_t row) {
  return std::min<uint64_t>(vocab_size, max_product / (row + 1));
}

// The cells row r stores: all its dense columns, or in a symmetric region
// those at or above r (none once r's own cell is not dense).
uint64_t StoredCells(uint32_t vocab_size, uint64_t max_product, bool symmetric, uint64_t row) {
  const uint64_t width = RowWidth(vocab_size, max_product, row);
  if (!symmetric) return width;
  return width > row ? width - row : 0;
}

// The cells of a region: rows store cells up to the first that stores
// none (in a symmetric region, the first whose own cell is not dense).
uint64_t CellsFor(uint32_t vocab_size, uint64_t max_product, bool symmetric) {
  uint64_t cells = 0;
  const uint64_t rows = std::min<uint64_t>(vocab_size, max_product);
  for (uint64_t r = 0; r < rows; ++r) {
    const uint64_t stored = StoredCells(vocab_size, max_product, symmetric, r);
    if (stored == 0) break;
    cells += stored;
  }
  return cells;
}

// The length of a Writer's list of deferred adds for one partition: the
// writers' lists together hold a quarter as many adds as the partition (or
// the region, when smaller) has cells, and a list at least a sixteenth:
// past four writers they take a sixteenth of the cells' memory each, not
// fewer adds a pass, which would each find fewer of their cells in the cache.
uint64_t ListLength(uint64_t cells, uint64_t partition_cells, int writers) {
  const uint64_t cells_a_list = std::min(cells, partition_cells);
  const uint64_t shared = cells_a_list / 4 / std::max(writers, 1);
  return std::max<uint64_t>({1, shared, cells_a_list / 16});
}

// The partitions of `cells` cells (the last one may be partial).
uint64_t Partitions(uint64_t cells, uint64_t partition_cells) {
  return (cells + partition_cells - 1) / partition_cells;
}

// Bytes of a region of `cells` cells (without its row table): the cells,
// the partitions' locks, and each writer's lists and their counts.
uint64_t RegionBytes(uint64_t cells, uint64_t partition_cells, int writers) {
  const uint64_t partitions = Partitions(cells, partition_cells);
  const uint64_t lists = partitions * (ListLength(cells, partition_cells, writers) * 8 + 4);
  return cells * 8 + partitions * sizeof(Mutex) + uint64_t(std::max(writers, 1)) * lists;
}

}  // namespace

uint64_t DenseRegion::MaxProductForBytes(uint32_t vocab_size, size_t bytes, bool symmetric,
                                         int writers) {
  // The row table (one entry a storing row) is bounded by the vocabulary.
  const uint64_t table_bytes = (uint64_t{vocab_size} + 1) * 8;
  if (bytes <= table_bytes) return 0;
  const uint64_t budget = bytes - table_bytes;
  uint64_t lo = 0, hi = uint64_t{vocab_size} * vocab_size;
  while (lo < hi) {  // the largest product whose cells fit
    const uint64_t mid = lo + (hi - lo + 1) / 2;
    const uint64_t cells = CellsFor(vocab_size, mid, symmetric);
    // A cell takes more than 8 bytes: the first test keeps RegionBytes
    // from overflowing.
    if (cells <= budget / 8 && RegionBytes(cells, kPartitionCells, writers) <= budget) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

DenseRegion::DenseRegion(uint32_t vocab_size, uint64_t max_product, bool symmetric, int writers)
    : vocab_size_(vocab_size),
      max_product_(max_product),
      symmetric_(symmetric),
      writers_(std::max(writers, 1)) {
  if (max_product == 0) return;  // an empty region: no row table either
  const uint64_t rows = std::min<uint64_t>(vocab_size, max_product);
  uint64_t offset = 0;
  for (uint64_t r = 0; r < rows; ++r) {
    const uint64_t stored = StoredCells(vocab_size, max_product, symmetric, r);
    if (stored == 0) break;  // as CellsFor: no later row stores any
    // Row r's first cell holds column 0, or column r in a symmetric region;
    // the rows before it hold at least one cell each, so the base is >= 0.
    row_base_.push_back(offset - (symmetric ? r : 0));
    offset += stored;
  }
  cells_ = LargeArray<uint64_t>(offset);
  list_length_ = ListLength(offset, kPartitionCells, writers_);
  partitions_ = Partitions(offset, kPartitionCells);
  locks_ = std::make_unique<Mutex[]>(partitions_);
}

size_t DenseRegion::memory_bytes() const {
  return RegionBytes(cells_.size(), kPartitionCells, writers_) + row_base_.size() * 8;
}

void DenseRegion::Apply(uint64_t partition, const uint64_t* adds, uint32_t n) {
  uint64_t* cells = cells_.data() + (partition << kPartitionBits);
  MutexLock lock(&locks_[partition]);
  // The partition's cells are not in the cache yet either: loading a cell
  // a few adds ahead lets those misses overlap.
  constexpr uint32_t kAhead = 16;
  for (uint32_t i = 0; i < n; ++i) {
    if (i + kAhead < n) __builtin_prefetch(cells + (adds[i + kAhead] >> 32), /*rw=*/1);
    cells[adds[i] >> 32] += static_cast<uint32_t>(adds[i]);
  }
}

void DenseRegion::AddNow(uint64_t cell, uint64_t value) {
  MutexLock lock(&locks_[cell >> kPartitionBits]);
  cells_[cell] += value;
}

DenseRegion::Writer::Writer(DenseRegion* region)
    : region_(region),
      list_length_(region->list_length_),
      lists_(region->partitions_ * region->list_length_),
      count_(region->partitions_, 0) {}

void DenseRegion::Writer::ApplyList(uint64_t partition) {
  region_->Apply(partition, lists_.data() + partition * list_length_, count_[partition]);
  count_[partition] = 0;
}

void DenseRegion::Writer::Flush() {
  for (uint64_t p = 0; p < count_.size(); ++p) {
    if (count_[p] > 0) ApplyList(p);
  }
}

uint64_t DenseRegion::Width(uint32_t row) const { return RowWidth(vocab_size_, max_product_, row); }

uint32_t DenseRegion::KeyRows() const {
  return static_cast<uint32_t>(cells_.size() == 0 ? 0
                                                  : std::min<uint64_t>(vocab_size_, max_product_));
}

void DenseRegion::Zero(uint64_t first, uint64_t last) {
  if (first < last) std::memset(cells_.data() + first, 0, (last - first) * sizeof(uint64_t));
}

void DenseRegion::AppendKeySamples(uint64_t cells_per_sample,
                                   std::vector<std::pair<uint64_t, uint64_t>>* samples) const {
  cells_per_sample = std::max<uint64_t>(cells_per_sample, 1);
  // Rows are read in parallel, in no order: the caller sorts the samples.
  // One thread reading every cell of a 256 MiB region held up each commit.
  tbb::combinable<std::vector<std::pair<uint64_t, uint64_t>>> found;
  tbb::parallel_for(tbb::blocked_range<uint32_t>(0, KeyRows()),
                    [&](const tbb::blocked_range<uint32_t>& rows) {
                      std::vector<std::pair<uint64_t, uint64_t>>& out = found.local();
                      for (uint32_t row = rows.begin(); row < rows.end(); ++row) {
                        AppendRowSamples(row, cells_per_sample, &out);
                      }
                    });
  found.combine_each([&](const std::vector<std::pair<uint64_t, uint64_t>>& part) {
    samples->insert(samples->end(), part.begin(), part.end());
  });
}

void DenseRegion::AppendRowSamples(uint32_t row, uint64_t cells_per_sample,
                                   std::vector<std::pair<uint64_t, uint64_t>>* samples) const {
  const uint64_t width = Width(row);
  for (uint64_t col = 0; col < width; col += cells_per_sample) {
    const uint64_t last = std::min(width, col + cells_per_sample);
    uint64_t nonzero = 0;
    for (uint64_t c = col; c < last; ++c)
      nonzero += cells_[Index(row, static_cast<uint32_t>(c))] != 0;
    if (nonzero > 0) samples->emplace_back(PairKey(row, static_cast<uint32_t>(col)), nonzero);
  }
}

// Reads the keys in order; in a symmetric region, the keys below a row's own
// column come from the rows above it, a column of the cells at a time.
class DenseDrainStream final : public PairStream {
 public:
  DenseDrainStream(const DenseRegion* region, uint64_t begin, uint64_t end)
      : region_(region),
        row_(PairRow(begin)),
        col_(PairCol(begin)),
        end_row_(std::min<uint64_t>(PairRow(end), region->KeyRows())),
        end_col_(PairRow(end) < region->KeyRows() ? PairCol(end) : 0) {
    StartRow();
  }
  Status Read(PairRecord* out, size_t max, size_t* n) override {
    *n = 0;
    for (;;) {
      while (col_ < stop_) {
        const uint64_t col = col_++;
        const uint64_t value = region_->cells_[region_->Index(row_, static_cast<uint32_t>(col))];
        if (value == 0) continue;
        out[(*n)++] = PairRecord{PairKey(row_, static_cast<uint32_t>(col)), value};
        if (*n == max) return Status::OK();
      }
      if (row_ >= end_row_) return Status::OK();
      ++row_;
      col_ = 0;
      StartRow();
    }
  }

 private:
  // Where reading row_ stops: its width, or the end key's column in the end
  // row, or at once past it.
  void StartRow() {
    const uint64_t width = row_ < region_->KeyRows() ? region_->Width(row_) : 0;
    if (row_ < end_row_) {
      stop_ = width;
    } else {
      stop_ = row_ == end_row_ ? std::min(end_col_, width) : 0;
    }
  }

  const DenseRegion* region_;
  uint32_t row_;
  uint64_t col_;
  uint64_t stop_ = 0;
  const uint64_t end_row_;
  const uint64_t end_col_;
};

std::unique_ptr<PairStream> DenseRegion::NewDrainStream(uint64_t begin, uint64_t end) const {
  return std::make_unique<DenseDrainStream>(this, begin, end);
}

}  // namespace streamglove
