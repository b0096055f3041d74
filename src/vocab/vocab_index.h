// VocabIndex: word -> id for a store's vocabulary (its ids: ranks in a fixed
// vocabulary, first-seen order in a growing one), built once and then read
// by every counting thread.
//
// An open-addressing table of 8-byte slots (the id and 32 bits of the word's
// hash), at most 3/4 full, that reads the words themselves from the
// vocabulary it indexes: about 11-21 bytes a word beside the vocabulary,
// where a table holding its own words took about 110 (a growing store's long
// tail of millions of words is what it is sized for). Linear probing; a
// word's bytes are compared only when the hash bits match.
//
// Thread-safety: Lookup() and Prefetch() may be called from any number of
// threads at once. The vocabulary must outlive the index and not change while
// it is used.
#ifndef STREAMGLOVE_VOCAB_VOCAB_INDEX_H_
#define STREAMGLOVE_VOCAB_VOCAB_INDEX_H_

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string_view>
#include <vector>

#include "streamglove/vocab_file.h"
#include "util/hash.h"

namespace streamglove {

class VocabIndex {
 public:
  static constexpr uint32_t kUnknown = std::numeric_limits<uint32_t>::max();

  // REQUIRES: fewer than 2^32 - 1 words. A word that appears more than once
  // is found at its first (lowest) id: ids are inserted in order and a later
  // copy lies further along the same probe chain (ReadVocabFile finds
  // duplicates so).
  explicit VocabIndex(const std::vector<VocabEntry>& vocab);

  // The word's id, or kUnknown.
  uint32_t Lookup(std::string_view word) const { return Lookup(word, HashBytes(word)); }
  // The same, given HashBytes(word).
  uint32_t Lookup(std::string_view word, uint64_t hash) const {
    const uint32_t tag = static_cast<uint32_t>(hash >> 32);
    for (size_t i = hash & mask_; slots_[i].id != kUnknown; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.tag == tag && (*vocab_)[s.id].word == word) return s.id;
    }
    return kUnknown;
  }
  // Starts loading the slot where a lookup of the word of `hash` begins.
  void Prefetch(uint64_t hash) const { __builtin_prefetch(slots_.data() + (hash & mask_)); }
  uint32_t size() const { return static_cast<uint32_t>(vocab_->size()); }
  // The slots' bytes (the words are the vocabulary's).
  size_t memory_bytes() const { return slots_.size() * sizeof(Slot); }
  // The vocabulary's OutOfLineBytes, summed over its words.
  uint64_t out_of_line_bytes() const { return out_of_line_bytes_; }
  // What an index of `words` words takes.
  static size_t BytesFor(uint64_t words);
  // The bytes a vocabulary entry of `word` holds outside itself: a word
  // longer than std::string's inline capacity (15 bytes in libstdc++) is
  // stored on the heap.
  static uint64_t OutOfLineBytes(std::string_view word) {
    return word.size() > 15 ? word.size() + 1 : 0;
  }

 private:
  struct Slot {
    uint32_t id;   // kUnknown: empty
    uint32_t tag;  // the hash's high half
  };
  static size_t SlotsFor(uint64_t words);

  const std::vector<VocabEntry>* vocab_;
  std::vector<Slot> slots_;
  size_t mask_;
  uint64_t out_of_line_bytes_ = 0;
};

}  // namespace streamglove

#endif  // STREAMGLOVE_VOCAB_VOCAB_INDEX_H_
