#include "cooccur/dense_region.h"

#include <algorithm>

namespace streamglove {

namespace {

uint64_t CellsFor(uint32_t vocab_size, uint64_t max_product) {
  uint64_t cells = 0;
  for (uint64_t r = 1; r <= vocab_size && r <= max_product; ++r) {
    cells += std::min<uint64_t>(vocab_size, max_product / r);
  }
  return cells;
}

}  // namespace

uint64_t DenseRegion::MaxProductForBytes(uint32_t vocab_size, size_t bytes) {
  const uint64_t budget_cells = bytes / 8 > vocab_size + 1 ? bytes / 8 - (vocab_size + 1) : 0;
  if (budget_cells == 0) return 0;
  uint64_t lo = 0, hi = uint64_t{vocab_size} * vocab_size;
  while (lo < hi) {  // the largest product whose cells fit
    const uint64_t mid = lo + (hi - lo + 1) / 2;
    if (CellsFor(vocab_size, mid) <= budget_cells) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

DenseRegion::DenseRegion(uint32_t vocab_size, uint64_t max_product) : max_product_(max_product) {
  if (max_product == 0) return;  // an empty region: no row table either
  offsets_.assign(vocab_size + 1, 0);
  for (uint64_t r = 0; r < vocab_size; ++r) {
    offsets_[r + 1] = offsets_[r] + std::min<uint64_t>(vocab_size, max_product / (r + 1));
  }
  cells_ = LargeArray<uint64_t>(offsets_[vocab_size]);
}

uint64_t DenseRegion::CellAt(uint64_t key) const {
  if (offsets_.empty()) return 0;
  const uint64_t rows = offsets_.size() - 1;
  const uint64_t row = PairRow(key);
  if (row >= rows) return offsets_[rows];
  return std::min(offsets_[row] + PairCol(key), offsets_[row + 1]);
}

void DenseRegion::Absorb(DenseRegion* other, uint64_t begin, uint64_t end) {
  const uint64_t first = CellAt(begin), last = CellAt(end);
  uint64_t* to = cells_.data();
  uint64_t* from = other->cells_.data();
  for (uint64_t i = first; i < last; ++i) {
    to[i] += from[i];
    from[i] = 0;
  }
}

void DenseRegion::AppendKeySamples(uint64_t cells_per_sample,
                                   std::vector<std::pair<uint64_t, uint64_t>>* samples) const {
  cells_per_sample = std::max<uint64_t>(cells_per_sample, 1);
  for (size_t row = 0; row + 1 < offsets_.size(); ++row) {
    const uint64_t width = offsets_[row + 1] - offsets_[row];
    for (uint64_t col = 0; col < width; col += cells_per_sample) {
      const uint64_t* first = cells_.data() + offsets_[row] + col;
      const uint64_t* last = first + std::min(cells_per_sample, width - col);
      const auto nonzero =
          static_cast<uint64_t>(std::count_if(first, last, [](uint64_t v) { return v != 0; }));
      if (nonzero > 0)
        samples->emplace_back(PairKey(static_cast<uint32_t>(row), static_cast<uint32_t>(col)),
                              nonzero);
    }
  }
}

class DenseDrainStream final : public PairStream {
 public:
  DenseDrainStream(DenseRegion* region, uint64_t first_cell, uint64_t end_cell)
      : region_(region), cell_(first_cell), end_cell_(end_cell) {
    const auto& offsets = region_->offsets_;
    if (cell_ < end_cell_) {
      row_ = static_cast<uint32_t>(std::upper_bound(offsets.begin(), offsets.end(), cell_) -
                                   offsets.begin() - 1);
    }
  }
  Status Next(PairRecord* record, bool* done) override {
    const auto& offsets = region_->offsets_;
    LargeArray<uint64_t>& cells = region_->cells_;
    while (cell_ < end_cell_) {
      while (cell_ >= offsets[row_ + 1]) ++row_;
      uint64_t& value = cells[cell_];
      if (value != 0) {
        *record = PairRecord{PairKey(row_, static_cast<uint32_t>(cell_ - offsets[row_])), value};
        value = 0;
        ++cell_;
        *done = false;
        return Status::OK();
      }
      ++cell_;
    }
    *done = true;
    return Status::OK();
  }

 private:
  DenseRegion* region_;
  uint32_t row_ = 0;
  uint64_t cell_;
  const uint64_t end_cell_;
};

std::unique_ptr<PairStream> DenseRegion::NewDrainStream(uint64_t begin, uint64_t end) {
  return std::make_unique<DenseDrainStream>(this, CellAt(begin), CellAt(end));
}

}  // namespace streamglove
