// VocabIndex: word -> id for a store's vocabulary (its ids: ranks in a fixed
// vocabulary, first-seen order in a growing one), built once and then read
// by every counting thread.
//
// Thread-safety: Lookup() may be called from any number of threads at once.
#ifndef STREAMGLOVE_VOCAB_VOCAB_INDEX_H_
#define STREAMGLOVE_VOCAB_VOCAB_INDEX_H_

#include <cstdint>
#include <limits>
#include <string_view>
#include <vector>

#include "streamglove/vocab_file.h"
#include "vocab/word_count_table.h"

namespace streamglove {

class VocabIndex {
 public:
  static constexpr uint32_t kUnknown = std::numeric_limits<uint32_t>::max();

  // REQUIRES: no duplicate words (ReadVocabFile and stores guarantee it).
  explicit VocabIndex(const std::vector<VocabEntry>& vocab);

  // The word's id, or kUnknown.
  uint32_t Lookup(std::string_view word) const {
    const uint64_t* id = table_.Find(word);
    return id == nullptr ? kUnknown : static_cast<uint32_t>(*id);
  }
  uint32_t size() const { return size_; }
  size_t memory_bytes() const { return table_.memory_bytes(); }

 private:
  WordCountTable table_;  // word -> id (Add() sums into zero, so it stores the id)
  uint32_t size_;
};

}  // namespace streamglove

#endif  // STREAMGLOVE_VOCAB_VOCAB_INDEX_H_
