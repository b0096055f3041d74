#include "vocab/vocab_index.h"

namespace streamglove {

VocabIndex::VocabIndex(const std::vector<VocabEntry>& vocab)
    : size_(static_cast<uint32_t>(vocab.size())) {
  // A word count table serves as the index, its "count" the id (the rank):
  // the open-addressing table the vocabulary pass counts with, one probe a
  // lookup.
  for (uint32_t id = 0; id < size_; ++id) table_.Add(vocab[id].word, id);
}

}  // namespace streamglove
