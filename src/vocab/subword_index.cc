#include "vocab/subword_index.h"

namespace streamglove {

SubwordIndex::SubwordIndex(const std::vector<VocabEntry>& vocab, uint32_t count,
                           const SubwordOptions& options)
    : options_(options) {
  begin_.reserve(size_t{count} + 1);
  begin_.push_back(0);
  for (uint32_t i = 0; i < count; ++i) {
    AppendNgramBuckets(vocab[i].word, options.min_n, options.max_n, options.buckets, &buckets_);
    begin_.push_back(buckets_.size());
  }
  buckets_.shrink_to_fit();
}

}  // namespace streamglove
