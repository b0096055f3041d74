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

size_t RankedVocab::memory_bytes() const {
  size_t bytes = words_.capacity() * sizeof(VocabEntry) +
                 (id_of_.capacity() + rank_of_.capacity()) * sizeof(uint32_t);
  for (const VocabEntry& e : words_) {
    if (e.word.size() >= sizeof(std::string)) bytes += e.word.capacity() + 1;  // not inline
  }
  return bytes;
}

Status ForEachRankedPair(Store* store, const RankedVocab& vocab, const Store::PairVisitor& f) {
  if (vocab.ids_are_ranks()) {
    // Ranked ids are a prefix: one scan of their rows in store order.
    return store->ForEachPairBelow(vocab.size(), [&](uint32_t row, uint32_t col, uint64_t value) {
      return col < vocab.size() ? f(row, col, value) : Status::OK();
    });
  }
  // Row by row in rank order; a row's pairs sorted by column rank.
  std::vector<std::pair<uint32_t, uint64_t>> row_pairs;  // (col rank, value)
  uint32_t current = RankedVocab::kCut;                  // the rank whose row is collected
  const auto flush = [&]() -> Status {
    std::sort(row_pairs.begin(), row_pairs.end());
    for (const auto& [c, value] : row_pairs) SG_RETURN_IF_ERROR(f(current, c, value));
    row_pairs.clear();
    return Status::OK();
  };
  std::vector<uint32_t> rows(vocab.size());
  for (uint32_t r = 0; r < vocab.size(); ++r) rows[r] = vocab.id(r);
  const Status read =
      store->ForEachPairOfRows(rows, [&](uint32_t row, uint32_t col, uint64_t value) -> Status {
        const uint32_t r = vocab.rank(row);
        if (r != current) {
          if (current != RankedVocab::kCut) SG_RETURN_IF_ERROR(flush());
          current = r;
        }
        const uint32_t c = vocab.rank(col);
        if (c != RankedVocab::kCut) row_pairs.emplace_back(c, value);
        return Status::OK();
      });
  SG_RETURN_IF_ERROR(read);
  if (current != RankedVocab::kCut) SG_RETURN_IF_ERROR(flush());
  return Status::OK();
}

}  // namespace streamglove
