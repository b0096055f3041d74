#include "vocab/subword_index.h"

#include <algorithm>
#include <cstddef>

namespace streamglove {

SubwordIndex::SubwordIndex(const std::vector<VocabEntry>& vocab, uint32_t count,
                           const SubwordOptions& options)
    : options_(options) {
  // Each word's n-grams are counted first, so that the array is allocated
  // once at its size: no growth's copies above what the memory plan holds.
  begin_.reserve(size_t{count} + 1);
  begin_.push_back(0);
  std::vector<uint32_t> word;
  for (uint32_t i = 0; i < count; ++i) {
    word.clear();
    AppendNgramBuckets(vocab[i].word, options.min_n, options.max_n, options.buckets, &word);
    begin_.push_back(begin_.back() + word.size());
  }
  buckets_.resize(begin_.back());
  for (uint32_t i = 0; i < count; ++i) {
    word.clear();
    AppendNgramBuckets(vocab[i].word, options.min_n, options.max_n, options.buckets, &word);
    std::copy(word.begin(), word.end(), buckets_.begin() + static_cast<ptrdiff_t>(begin_[i]));
  }
}

}  // namespace streamglove
