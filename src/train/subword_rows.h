// SubwordRows: the n-gram rows of a subword model (include/streamglove/
// subwords.h) and the arithmetic that joins them to a word's own row.
//
// A word's input vector is the mean of its own row and the rows of its
// n-grams' buckets, fastText's hidden vector: h = (w + sum_g z_g) / (1 + n).
// A step on h is made on each of those rows in full, as fastText does (its
// skip-gram adds the hidden vector's gradient to every input row), so that h
// moves by the step whatever the number of n-grams.
//
// Layout: `buckets` rows of RowStride(dim) floats (the components; the slot
// a GloVe row keeps its bias in is unused: biases are the word's), and, for
// AdaGrad, their squared-gradient sums stored minus 1 (AdaGrad starts them
// at 1). Both start as zeros, so the pages of buckets no word of the
// vocabulary reaches are never touched and never resident.
//
// Thread-safety: as EmbeddingModel (Hogwild): Gather and the steps run on
// many threads at once, without locks; the rest from one thread.
#ifndef STREAMGLOVE_TRAIN_SUBWORD_ROWS_H_
#define STREAMGLOVE_TRAIN_SUBWORD_ROWS_H_

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "train/embedding_model.h"
#include "util/large_array.h"
#include "vocab/subword_index.h"

namespace streamglove {

class SubwordRows {
 public:
  // Rows for `index`'s buckets; `adagrad` adds their squared-gradient sums.
  // `index` must outlive them. Throws std::bad_alloc as LargeArray.
  SubwordRows(const SubwordIndex* index, uint32_t dim, bool adagrad);

  static size_t MemoryBytes(uint32_t buckets, uint32_t dim, bool adagrad) {
    return (adagrad ? 2 : 1) * size_t{buckets} * RowStride(dim) * sizeof(float);
  }

  const SubwordIndex& index() const { return *index_; }
  const float* rows() const { return rows_.data(); }
  size_t stride() const { return stride_; }

  // h = the mean of `word_row` (word i's own) and word i's n-gram rows.
  void Gather(uint32_t i, const float* word_row, float* h) const {
    const uint32_t n = index_->ngram_count(i);
    const uint32_t* g = index_->ngrams(i);
    for (uint32_t b = 0; b < dim_; ++b) h[b] = word_row[b];
    for (uint32_t k = 0; k < n; ++k) {
      const float* z = rows_.data() + size_t{g[k]} * stride_;
#pragma omp simd
      for (uint32_t b = 0; b < dim_; ++b) h[b] += z[b];
    }
    const float inv = 1.0f / static_cast<float>(1 + n);
    for (uint32_t b = 0; b < dim_; ++b) h[b] *= inv;
  }

  // Adds `step` to word i's n-gram rows (SGD; its own row is the caller's).
  void AddStep(uint32_t i, const float* step) {
    const uint32_t n = index_->ngram_count(i);
    const uint32_t* g = index_->ngrams(i);
    for (uint32_t k = 0; k < n; ++k) {
      float* __restrict z = rows_.data() + size_t{g[k]} * stride_;
#pragma omp simd
      for (uint32_t b = 0; b < dim_; ++b) z[b] += step[b];
    }
  }

  // AdaGrad on word i's n-gram rows, as GloVe steps a word row: each
  // component moves by -scale * t / sqrt(G), G its squared-gradient sum
  // (before this step), which then grows by t^2. `t` is the clipped
  // gradient times eta.
  void AdaGradStep(uint32_t i, const float* t, float scale) {
    const uint32_t n = index_->ngram_count(i);
    const uint32_t* g = index_->ngrams(i);
    for (uint32_t k = 0; k < n; ++k) {
      float* __restrict z = rows_.data() + size_t{g[k]} * stride_;
      float* __restrict q = gradsq_.data() + size_t{g[k]} * stride_;
#pragma omp simd
      for (uint32_t b = 0; b < dim_; ++b) {
        z[b] -= scale * t[b] / std::sqrt(q[b] + 1.0f);
        q[b] += t[b] * t[b];
      }
    }
  }

  // Asks the caches for word i's n-gram rows.
  void Prefetch(uint32_t i) const {
    const uint32_t n = index_->ngram_count(i);
    const uint32_t* g = index_->ngrams(i);
    for (uint32_t k = 0; k < n; ++k) {
      for (uint32_t b = 0; b < stride_; b += 16) {
        __builtin_prefetch(rows_.data() + size_t{g[k]} * stride_ + b, 1);
        if (gradsq_.size() > 0) __builtin_prefetch(gradsq_.data() + size_t{g[k]} * stride_ + b, 1);
      }
    }
  }

  // The arrays a checkpoint holds after the word rows' (rows, then the sums).
  std::vector<LargeArray<float>*> CheckpointArrays();

  // Replaces each word row of `words` (index().words() rows of stride())
  // by the word's input vector, leaving the slot after the components (a
  // GloVe bias) as it is: what the vectors file is written from, once
  // training is done.
  void FoldIntoWords(float* words) const;

 private:
  const SubwordIndex* const index_;
  const uint32_t dim_;
  const size_t stride_;
  LargeArray<float> rows_, gradsq_;
};

}  // namespace streamglove

#endif  // STREAMGLOVE_TRAIN_SUBWORD_ROWS_H_
