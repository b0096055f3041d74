#include "train/warm_start.h"

#include <string_view>
#include <unordered_map>

#include <fmt/format.h>

#include "streamglove/embeddings.h"
#include "train/checkpoint.h"

namespace streamglove {

Status WarmStart(const std::string& vectors, const std::vector<VocabEntry>& vocab,
                 EmbeddingModel* model, uint32_t* kept) {
  *kept = 0;
  Embeddings earlier;
  SG_RETURN_IF_ERROR(earlier.Load(vectors));
  std::unordered_map<std::string_view, uint32_t> rank;
  rank.reserve(vocab.size());
  for (uint32_t r = 0; r < vocab.size(); ++r) rank.emplace(vocab[r].word, r);
  std::vector<uint32_t> rows(earlier.size(), kNotCopied);
  WordsHash earlier_words;  // the checkpoint must state these, in this order
  for (uint32_t i = 0; i < earlier.size(); ++i) {
    earlier_words.Add(earlier.word(i));
    const auto it = rank.find(earlier.word(i));
    if (it == rank.end()) continue;
    rows[i] = it->second;
    ++*kept;
  }
  // A subword model's n-gram rows are the same n-grams' in both runs (a
  // bucket is its n-grams' hash): they are taken whole.
  const std::vector<LargeArray<float>*> words = model->WordArrays();
  std::vector<LargeArray<float>*> all = model->CheckpointArrays();
  const std::vector<LargeArray<float>*> ngrams(all.begin() + words.size(), all.end());
  return LoadCheckpointRows(vectors + ".checkpoint", model->dim(), earlier_words.value(), rows,
                            words, ngrams);
}

}  // namespace streamglove
