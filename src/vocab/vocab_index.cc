#include "vocab/vocab_index.h"

namespace streamglove {

size_t VocabIndex::SlotsFor(uint64_t words) {
  size_t slots = 16;
  while (slots * 3 < words * 4) slots *= 2;  // at most 3/4 full
  return slots;
}

size_t VocabIndex::BytesFor(uint64_t words) { return SlotsFor(words) * sizeof(Slot); }

VocabIndex::VocabIndex(const std::vector<VocabEntry>& vocab)
    : vocab_(&vocab), slots_(SlotsFor(vocab.size()), Slot{kUnknown, 0}), mask_(slots_.size() - 1) {
  for (uint32_t id = 0; id < vocab.size(); ++id) {
    const uint64_t hash = HashBytes(vocab[id].word);
    size_t i = hash & mask_;
    while (slots_[i].id != kUnknown) i = (i + 1) & mask_;
    slots_[i] = Slot{id, static_cast<uint32_t>(hash >> 32)};
    out_of_line_bytes_ += OutOfLineBytes(vocab[id].word);
  }
}

}  // namespace streamglove
