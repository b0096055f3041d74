// SubwordIndex: the n-gram buckets of every word of a trained vocabulary,
// computed once per run (include/streamglove/subwords.h has the scheme), so
// that an update reads a word's buckets instead of hashing its n-grams.
//
// Layout: one array of every word's buckets, word after word, and each
// word's first position in it (compressed rows).
//
// Thread-safety: immutable once built; any number of threads may read.
#ifndef STREAMGLOVE_VOCAB_SUBWORD_INDEX_H_
#define STREAMGLOVE_VOCAB_SUBWORD_INDEX_H_

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "streamglove/subwords.h"
#include "streamglove/vocab_file.h"

namespace streamglove {

class SubwordIndex {
 public:
  // The buckets of vocab[0 .. count). REQUIRES: options.enabled, options.buckets > 0.
  SubwordIndex(const std::vector<VocabEntry>& vocab, uint32_t count, const SubwordOptions& options);

  const SubwordOptions& options() const { return options_; }
  uint32_t buckets() const { return options_.buckets; }
  uint32_t words() const { return static_cast<uint32_t>(begin_.size() - 1); }

  // Word i's buckets: ngrams(i)[0 .. ngram_count(i)).
  const uint32_t* ngrams(uint32_t i) const { return buckets_.data() + begin_[i]; }
  uint32_t ngram_count(uint32_t i) const {
    return static_cast<uint32_t>(begin_[i + 1] - begin_[i]);
  }
  // Every word's n-grams, repeats counted.
  uint64_t ngram_total() const { return buckets_.size(); }

  // Bytes held, for the memory plan.
  size_t memory_bytes() const {
    return buckets_.capacity() * sizeof(uint32_t) + begin_.capacity() * sizeof(uint64_t);
  }

 private:
  SubwordOptions options_;
  std::vector<uint64_t> begin_;  // words() + 1 positions
  std::vector<uint32_t> buckets_;
};

}  // namespace streamglove

#endif  // STREAMGLOVE_VOCAB_SUBWORD_INDEX_H_
