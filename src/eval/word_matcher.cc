#include "corpus/utf8.h"
#include "streamglove/eval.h"

namespace streamglove {

WordMatcher::WordMatcher(const Embeddings& embeddings, CaseMode mode, uint32_t restrict_vocab)
    : embeddings_(embeddings),
      mode_(mode),
      candidates_(restrict_vocab == 0 ? embeddings.size()
                                      : std::min(restrict_vocab, embeddings.size())) {
  if (mode_ != CaseMode::kInsensitive) return;
  // Rows in file order, so each folded key's first row is its most frequent
  // spelling: the one a case-insensitive lookup answers with.
  for (uint32_t i = 0; i < candidates_; ++i) folded_[Key(embeddings.word(i))].push_back(i);
}

std::string WordMatcher::Key(std::string_view word) const {
  if (mode_ == CaseMode::kExact) return std::string(word);
  std::string key;
  AppendLowercase(word, &key);
  return key;
}

uint32_t WordMatcher::Find(std::string_view word) const {
  if (mode_ == CaseMode::kInsensitive) {
    const auto it = folded_.find(Key(word));
    return it == folded_.end() ? Embeddings::kNotFound : it->second.front();
  }
  const uint32_t row = embeddings_.Find(Key(word));
  return row < candidates_ ? row : Embeddings::kNotFound;
}

bool WordMatcher::Vector(std::string_view word, std::vector<float>* out) const {
  const uint32_t row = Find(word);
  if (row != Embeddings::kNotFound) {
    out->resize(embeddings_.dim());
    for (uint32_t k = 0; k < embeddings_.dim(); ++k)
      (*out)[k] = static_cast<float>(embeddings_.value(row, k));
    return true;
  }
  if (!embeddings_.has_subwords()) return false;
  // kInsensitive's vectors keep their case, and so do the n-grams they were
  // trained with: only kLower's queries are lowercased.
  return embeddings_.WordVector(mode_ == CaseMode::kLower ? Key(word) : std::string(word), out);
}

std::vector<uint32_t> WordMatcher::Variants(uint32_t row) const {
  if (mode_ != CaseMode::kInsensitive) return {row};
  const auto it = folded_.find(Key(embeddings_.word(row)));
  return it == folded_.end() ? std::vector<uint32_t>{row} : it->second;
}

uint32_t WordMatcher::Canonical(uint32_t row) const {
  if (mode_ != CaseMode::kInsensitive) return row;
  const auto it = folded_.find(Key(embeddings_.word(row)));
  return it == folded_.end() ? row : it->second.front();
}

}  // namespace streamglove
