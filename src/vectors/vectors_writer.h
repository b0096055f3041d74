// Writing trained vectors: Stanford GloVe's text format and word2vec's text
// and binary formats (which gensim's KeyedVectors.load_word2vec_format reads).
#ifndef STREAMGLOVE_VECTORS_VECTORS_WRITER_H_
#define STREAMGLOVE_VECTORS_VECTORS_WRITER_H_

#include <string>
#include <vector>

#include "streamglove/train.h"
#include "streamglove/vocabulary.h"
#include "train/embedding_model.h"

namespace streamglove {

// Writes the model's vectors for vocab[0 .. model.vocab()) to `path`
// atomically. REQUIRES: vocab.size() >= model.vocab().
Status WriteVectors(const std::string& path, const std::vector<VocabEntry>& vocab, const EmbeddingModel& model,
                    VectorsKind kind, VectorsFormat format);

}  // namespace streamglove

#endif  // STREAMGLOVE_VECTORS_VECTORS_WRITER_H_
