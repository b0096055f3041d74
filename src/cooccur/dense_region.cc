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

class DenseDrainStream final : public PairStream {
 public:
  explicit DenseDrainStream(DenseRegion* region) : region_(region) {}
  Status Next(PairRecord* record, bool* done) override {
    const auto& offsets = region_->offsets_;
    LargeArray<uint64_t>& cells = region_->cells_;
    while (cell_ < cells.size()) {
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
  uint64_t cell_ = 0;
};

std::unique_ptr<PairStream> DenseRegion::NewDrainStream() { return std::make_unique<DenseDrainStream>(this); }

}  // namespace streamglove
