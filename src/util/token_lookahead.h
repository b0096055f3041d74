// TokenLookahead: holds each token back a few tokens between hashing it and
// looking it up, so that the table slot it starts at can arrive from memory
// meanwhile. A vocabulary's table is larger than the caches, and looked up
// one token at a time nearly every lookup of a word outside the most
// frequent missed them; hashing kLookahead tokens ahead lets those misses
// overlap (wiki100M: a whole ingest about 3-6% less time, medians of noisy
// runs, when counting took it up; then the vocabulary pass 1.46-1.50 s
// against 1.59-1.70 s at one thread).
//
// Thread-safety: not thread-safe; each tokenizing worker owns one.
#ifndef STREAMGLOVE_UTIL_TOKEN_LOOKAHEAD_H_
#define STREAMGLOVE_UTIL_TOKEN_LOOKAHEAD_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "util/hash.h"

namespace streamglove {

class TokenLookahead {
 public:
  static constexpr size_t kLookahead = 8;

  // Hashes `token` and calls prefetch(hash); first, when kLookahead tokens
  // are held back, calls use(word, hash) for the oldest and forgets it.
  template <class Prefetch, class Use>
  void Push(std::string_view token, Prefetch&& prefetch, Use&& use) {
    if (count_ == kLookahead) UseOldest(use);
    Pending& next = pending_[(first_ + count_) % kLookahead];
    next.word.assign(token);
    next.hash = HashBytes(token);
    prefetch(next.hash);
    ++count_;
  }

  // Calls use(word, hash) for every token held back, oldest first.
  template <class Use>
  void Drain(Use&& use) {
    while (count_ > 0) UseOldest(use);
  }

 private:
  struct Pending {
    std::string word;  // a tokenizer's view may not outlive its callback
    uint64_t hash = 0;
  };

  template <class Use>
  void UseOldest(Use& use) {
    const Pending& oldest = pending_[first_];
    use(std::string_view(oldest.word), oldest.hash);
    first_ = (first_ + 1) % kLookahead;
    --count_;
  }

  // A FIFO: count_ tokens from first_, wrapping.
  Pending pending_[kLookahead];
  size_t first_ = 0;
  size_t count_ = 0;
};

}  // namespace streamglove

#endif  // STREAMGLOVE_UTIL_TOKEN_LOOKAHEAD_H_
