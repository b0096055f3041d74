#include "store/ranked_vocab.h"

#include <algorithm>
#include <numeric>

namespace streamglove {

RankedVocab::RankedVocab(const StoreConfig& config, const std::vector<VocabEntry>& by_id,
                         uint64_t min_count, uint64_t max_vocab) {
  if (min_count == 0) min_count = config.min_count;
  if (max_vocab == 0) max_vocab = config.max_vocab;
  std::vector<uint32_t> ids;
  for (uint32_t id = 0; id < by_id.size(); ++id) {
    if (by_id[id].count >= min_count) ids.push_back(id);
  }
  const auto by_rank = [&](uint32_t a, uint32_t b) {
    if (by_id[a].count != by_id[b].count) return by_id[a].count > by_id[b].count;
    return by_id[a].word < by_id[b].word;
  };
  // A fixed vocabulary's ids are its ranks (its file's order, whose ties
  // Stanford's vocab_count breaks its own way); a growing store's follow the
  // order words arrived in.
  if (!config.fixed_vocabulary) std::stable_sort(ids.begin(), ids.end(), by_rank);
  if (max_vocab != 0 && ids.size() > max_vocab) ids.resize(max_vocab);
  const size_t n = ids.size();
  rank_of_.assign(by_id.size(), kCut);
  words_.reserve(n);
  for (uint32_t r = 0; r < n; ++r) {
    rank_of_[ids[r]] = r;
    words_.push_back(by_id[ids[r]]);
    ids_are_ranks_ = ids_are_ranks_ && ids[r] == r;
  }
  id_of_ = std::move(ids);
}

Status ForEachRankedPair(Store* store, const RankedVocab& vocab, const Store::PairVisitor& f) {
  if (vocab.ids_are_ranks()) {
    // Ranked ids are a prefix: one scan of their rows in store order.
    return store->ForEachPairBelow(vocab.size(), [&](uint32_t row, uint32_t col, uint64_t value) {
      return col < vocab.size() ? f(row, col, value) : Status::OK();
    });
  }
  std::vector<std::pair<uint32_t, uint64_t>> row_pairs;  // (col rank, value)
  for (uint32_t r = 0; r < vocab.size(); ++r) {
    const uint32_t id = vocab.id(r);
    row_pairs.clear();
    SG_RETURN_IF_ERROR(
        store->ForEachPairInRows(id, id + 1, [&](uint32_t, uint32_t col, uint64_t value) {
          const uint32_t c = vocab.rank(col);
          if (c != RankedVocab::kCut) row_pairs.emplace_back(c, value);
          return Status::OK();
        }));
    std::sort(row_pairs.begin(), row_pairs.end());
    for (const auto& [c, value] : row_pairs) SG_RETURN_IF_ERROR(f(r, c, value));
  }
  return Status::OK();
}

}  // namespace streamglove
