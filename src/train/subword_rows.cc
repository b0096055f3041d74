#include "train/subword_rows.h"

namespace streamglove {

SubwordRows::SubwordRows(const SubwordIndex* index, uint32_t dim, bool adagrad)
    : index_(index),
      dim_(dim),
      stride_(RowStride(dim)),
      rows_(size_t{index->buckets()} * stride_),
      gradsq_(adagrad ? size_t{index->buckets()} * stride_ : 0) {}

std::vector<LargeArray<float>*> SubwordRows::CheckpointArrays() {
  if (gradsq_.size() == 0) return {&rows_};
  return {&rows_, &gradsq_};
}

void SubwordRows::FoldIntoWords(float* words) const {
  std::vector<float> h(dim_);
  for (uint32_t i = 0; i < index_->words(); ++i) {
    float* row = words + size_t{i} * stride_;
    Gather(i, row, h.data());
    std::copy(h.begin(), h.end(), row);
  }
}

}  // namespace streamglove
