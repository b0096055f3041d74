// Writing trained vectors: Stanford GloVe's text format and word2vec's text
// and binary formats (which gensim's KeyedVectors.load_word2vec_format reads).
#ifndef STREAMGLOVE_VECTORS_VECTORS_WRITER_H_
#define STREAMGLOVE_VECTORS_VECTORS_WRITER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "streamglove/status.h"
#include "streamglove/vectors_format.h"
#include "streamglove/vocab_file.h"

namespace streamglove {

// Trained rows as a model holds them: word i's vector is the `dim` floats at
// word + i * stride, its context vector those at context + i * stride. A
// view: the arrays belong to the caller.
struct ParameterRows {
  uint32_t count = 0;
  uint32_t dim = 0;
  size_t stride = 0;
  const float* word = nullptr;
  const float* context = nullptr;
};

// Word i's vector of `kind` into out (dim floats, 2 dim for kBoth);
// kWordPlusContext is w + context_weight * w̃ (the paper's: 1).
void KindVector(const ParameterRows& rows, uint32_t i, VectorsKind kind, float context_weight,
                float* out);

// Writes the vectors of vocab[0 .. rows.count) to `path` atomically.
// REQUIRES: vocab.size() >= rows.count.
Status WriteVectors(const std::string& path, const std::vector<VocabEntry>& vocab,
                    const ParameterRows& rows, VectorsKind kind, float context_weight,
                    VectorsFormat format);

}  // namespace streamglove

#endif  // STREAMGLOVE_VECTORS_VECTORS_WRITER_H_
