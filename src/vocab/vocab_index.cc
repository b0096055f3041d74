#include "vocab/vocab_index.h"

namespace streamglove {

VocabIndex::VocabIndex(const std::vector<VocabEntry>& vocab)
    : size_(static_cast<uint32_t>(vocab.size())) {
  for (uint32_t id = 0; id < size_; ++id) table_.Add(vocab[id].word, id);
}

}  // namespace streamglove
