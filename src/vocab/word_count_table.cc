#include "vocab/word_count_table.h"

#include <algorithm>
#include <cstring>

#include "util/hash.h"

namespace streamglove {

namespace {
constexpr size_t kInitialSlots = size_t{1} << 12;
constexpr size_t kArenaBlockBytes = size_t{256} << 10;
// Grow when more than 5/8 of the slots are used.
constexpr size_t kLoadNumerator = 5, kLoadDenominator = 8;
}  // namespace

WordCountTable::WordCountTable(size_t max_bytes) : max_bytes_(max_bytes), slots_(kInitialSlots) {}

size_t WordCountTable::memory_bytes() const {
  return slots_.capacity() * sizeof(Slot) + arena_bytes_;
}

bool WordCountTable::Grow(size_t extra_word_bytes) {
  const size_t new_slots = slots_.size() * 2;
  // Old and new arrays coexist while rehashing.
  if (max_bytes_ != 0 &&
      (slots_.size() + new_slots) * sizeof(Slot) + arena_bytes_ + extra_word_bytes > max_bytes_) {
    return false;
  }
  std::vector<Slot> grown(new_slots);
  const size_t mask = new_slots - 1;
  for (const Slot& s : slots_) {
    if (s.word == nullptr) continue;
    size_t i = s.hash & mask;
    while (grown[i].word != nullptr) i = (i + 1) & mask;
    grown[i] = s;
  }
  slots_.swap(grown);
  return true;
}

const char* WordCountTable::StoreWord(std::string_view word) {
  if (word.size() > block_left_) {
    const size_t bytes = std::max(kArenaBlockBytes, word.size());
    blocks_.push_back(std::make_unique<char[]>(bytes));
    block_ptr_ = blocks_.back().get();
    block_left_ = bytes;
    arena_bytes_ += bytes;
  }
  char* p = block_ptr_;
  std::memcpy(p, word.data(), word.size());
  block_ptr_ += word.size();
  block_left_ -= word.size();
  return p;
}

bool WordCountTable::Add(std::string_view word, uint64_t hash, uint64_t count) {
  size_t mask = slots_.size() - 1;
  size_t i = hash & mask;
  while (slots_[i].word != nullptr) {
    Slot& s = slots_[i];
    if (s.hash == hash && s.len == word.size() &&
        std::memcmp(s.word, word.data(), word.size()) == 0) {
      s.count += count;
      return true;
    }
    i = (i + 1) & mask;
  }
  const size_t new_block = word.size() > block_left_ ? std::max(kArenaBlockBytes, word.size()) : 0;
  if ((size_ + 1) * kLoadDenominator > slots_.size() * kLoadNumerator) {
    if (!Grow(new_block)) return false;
    mask = slots_.size() - 1;
    i = hash & mask;
    while (slots_[i].word != nullptr) i = (i + 1) & mask;
  } else if (max_bytes_ != 0 && memory_bytes() + new_block > max_bytes_) {
    return false;
  }
  slots_[i] = Slot{hash, count, StoreWord(word), static_cast<uint32_t>(word.size())};
  ++size_;
  return true;
}

const uint64_t* WordCountTable::Find(std::string_view word) const {
  const uint64_t hash = HashBytes(word);
  const size_t mask = slots_.size() - 1;
  for (size_t i = hash & mask; slots_[i].word != nullptr; i = (i + 1) & mask) {
    const Slot& s = slots_[i];
    if (s.hash == hash && s.len == word.size() &&
        std::memcmp(s.word, word.data(), word.size()) == 0) {
      return &s.count;
    }
  }
  return nullptr;
}

void WordCountTable::Clear() {
  std::fill(slots_.begin(), slots_.end(), Slot{0, 0, nullptr, 0});
  size_ = 0;
  blocks_.clear();
  block_ptr_ = nullptr;
  block_left_ = arena_bytes_ = 0;
}

size_t WordCountTable::CompactAndSort(Order order, uint64_t min_count) {
  size_t n = 0;
  for (const Slot& s : slots_) {
    if (s.word != nullptr && s.count >= min_count) slots_[n++] = s;
  }
  // Slots past n are stale copies; Clear() follows every drain.
  auto by_word = [](const Slot& a, const Slot& b) {
    const int c = std::memcmp(a.word, b.word, std::min(a.len, b.len));
    return c != 0 ? c < 0 : a.len < b.len;
  };
  if (order == Order::kByWord) {
    std::sort(slots_.begin(), slots_.begin() + n, by_word);
  } else {
    std::sort(slots_.begin(), slots_.begin() + n, [&](const Slot& a, const Slot& b) {
      return a.count != b.count ? a.count > b.count : by_word(a, b);
    });
  }
  return n;
}

}  // namespace streamglove
