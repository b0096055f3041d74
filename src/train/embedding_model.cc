#include "train/embedding_model.h"

#include "train/checkpoint.h"
#include "train/subword_rows.h"

namespace streamglove {

EmbeddingModel::EmbeddingModel(uint32_t vocab, uint32_t dim, const SubwordIndex* subwords,
                               bool adagrad)
    : vocab_(vocab),
      dim_(dim),
      stride_(RowStride(dim)),
      word_(size_t{vocab} * stride_),
      context_(size_t{vocab} * stride_) {
  if (subwords != nullptr) subwords_ = std::make_unique<SubwordRows>(subwords, dim, adagrad);
}

EmbeddingModel::~EmbeddingModel() = default;

std::vector<LargeArray<float>*> EmbeddingModel::CheckpointArrays() {
  std::vector<LargeArray<float>*> arrays = WordArrays();
  if (subwords_ != nullptr) {
    for (LargeArray<float>* a : subwords_->CheckpointArrays()) arrays.push_back(a);
  }
  return arrays;
}

void EmbeddingModel::FoldSubwords() {
  if (subwords_ != nullptr) subwords_->FoldIntoWords(word_.data());
}

Status EmbeddingModel::Save(const std::string& path, uint32_t epochs_done,
                            const CheckpointStamp& stamp) {
  // CheckpointArrays() hands out writable arrays (Load fills them); saving
  // only reads them.
  std::vector<const LargeArray<float>*> arrays;
  for (LargeArray<float>* a : CheckpointArrays()) arrays.push_back(a);
  return SaveCheckpoint(path, vocab_, dim_, epochs_done, stamp, arrays);
}

Status EmbeddingModel::Load(const std::string& path, const CheckpointStamp& stamp,
                            uint32_t* epochs_done) {
  return LoadCheckpoint(path, vocab_, dim_, stamp, CheckpointArrays(), epochs_done);
}

}  // namespace streamglove
