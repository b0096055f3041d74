// WordCountTable: word -> count, in memory bounded by a byte budget.
//
// Open addressing with linear probing over 32-byte slots; words live in an
// arena of large blocks. memory_bytes() counts both exactly (slot array plus
// arena blocks), and Add() refuses a new word that would take the table past
// its budget, so the caller can spill the table and go on.
//
// Thread-safety: not thread-safe; each pipeline worker owns one.
#ifndef STREAMGLOVE_VOCAB_WORD_COUNT_TABLE_H_
#define STREAMGLOVE_VOCAB_WORD_COUNT_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "util/hash.h"

namespace streamglove {

class WordCountTable {
 public:
  // max_bytes = 0: no budget.
  explicit WordCountTable(size_t max_bytes = 0);
  WordCountTable(const WordCountTable&) = delete;
  WordCountTable& operator=(const WordCountTable&) = delete;

  // Adds `count` to `word`'s count. Returns false, changing nothing, when the
  // word is new and storing it (or growing the slot array, which briefly
  // holds old and new arrays) would exceed the budget.
  // REQUIRES: !word.empty().
  bool Add(std::string_view word, uint64_t count) { return Add(word, HashBytes(word), count); }
  // The same, given HashBytes(word).
  bool Add(std::string_view word, uint64_t hash, uint64_t count);
  // Starts loading the slot where a lookup of `hash` starts.
  void Prefetch(uint64_t hash) const { __builtin_prefetch(&slots_[hash & (slots_.size() - 1)]); }

  // The value stored for `word`, or nullptr. Safe to call from many threads
  // at once while no thread modifies the table.
  const uint64_t* Find(std::string_view word) const;

  size_t size() const { return size_; }
  // Bytes held: slot array plus arena blocks.
  size_t memory_bytes() const;

  // Calls f(word, count) for every entry, in no particular order.
  template <class F>
  void ForEach(F&& f) const {
    for (const Slot& s : slots_) {
      if (s.word != nullptr) f(std::string_view(s.word, s.len), s.count);
    }
  }

  enum class Order {
    kByWord,       // ascending bytes (memcmp)
    kByCountDesc,  // descending count, ties by ascending bytes
  };

  // Calls f(word, count) for every entry with count >= min_count, in `order`,
  // then empties the table (keeping its slot array). Sorts in place, so it
  // needs no memory beyond the table's own.
  template <class F>
  void Drain(Order order, uint64_t min_count, F&& f) {
    const size_t n = CompactAndSort(order, min_count);
    for (size_t i = 0; i < n; ++i)
      f(std::string_view(slots_[i].word, slots_[i].len), slots_[i].count);
    Clear();
  }

  // Removes every entry and frees the arena; keeps the slot array.
  void Clear();

 private:
  struct Slot {
    uint64_t hash;
    uint64_t count;
    const char* word;  // nullptr: empty slot
    uint32_t len;
  };

  bool Grow(size_t extra_word_bytes);
  const char* StoreWord(std::string_view word);
  size_t CompactAndSort(Order order, uint64_t min_count);

  const size_t max_bytes_;
  std::vector<Slot> slots_;
  size_t size_ = 0;
  std::vector<std::unique_ptr<char[]>> blocks_;
  char* block_ptr_ = nullptr;
  size_t block_left_ = 0;
  size_t arena_bytes_ = 0;
};

}  // namespace streamglove

#endif  // STREAMGLOVE_VOCAB_WORD_COUNT_TABLE_H_
