// RankedVocab: a store's vocabulary as its readers (training, dumps) see it.
//
// A store assigns word ids in the order words first reach it and never
// changes them (store.h), so that an addition can bring new words; readers
// want the words ranked by frequency and cut, as Stanford GloVe's vocab
// file is. The ranking is computed when the store is read: words with at
// least `min_count` occurrences, ordered by (count descending, bytes
// ascending, as memcmp), the first `max_vocab` of them. The same counts give
// the same ranks, whatever order the inputs were ingested in. A fixed
// vocabulary keeps the order it was made in (its ids).
//
// Thread-safety: immutable after construction.
#ifndef STREAMGLOVE_STORE_RANKED_VOCAB_H_
#define STREAMGLOVE_STORE_RANKED_VOCAB_H_

#include <cstdint>
#include <limits>
#include <vector>

#include "store/store.h"
#include "streamglove/vocab_file.h"

namespace streamglove {

class RankedVocab {
 public:
  static constexpr uint32_t kCut = std::numeric_limits<uint32_t>::max();

  // `min_count` 0 takes the store's own (StoreConfig::min_count), and
  // `max_vocab` 0 the store's (StoreConfig::max_vocab; 0 there: no limit).
  RankedVocab(const StoreConfig& config, const std::vector<VocabEntry>& by_id, uint64_t min_count,
              uint64_t max_vocab);

  const std::vector<VocabEntry>& words() const { return words_; }  // by rank
  uint32_t size() const { return static_cast<uint32_t>(words_.size()); }
  // The rank of store id `id`, or kCut.
  uint32_t rank(uint32_t id) const { return id < rank_of_.size() ? rank_of_[id] : kCut; }
  uint32_t id(uint32_t rank) const { return id_of_[rank]; }
  // Every ranked word's id is its rank (a store whose ids were assigned in
  // rank order and whose ranking has not changed since), so the store's
  // (row, col) order is rank order.
  bool ids_are_ranks() const { return ids_are_ranks_; }
  // What this object holds.
  size_t memory_bytes() const;

 private:
  std::vector<VocabEntry> words_;
  std::vector<uint32_t> id_of_;    // rank -> id
  std::vector<uint32_t> rank_of_;  // id -> rank or kCut
  bool ids_are_ranks_ = true;
};

// Calls f(row rank, col rank, value) for every non-zero pair of two ranked
// words, in (row rank, col rank) order; stops at the first non-OK status.
// Reads only the rows of ranked words: with ids in rank order one forward
// scan, otherwise one seek per ranked row (whose pairs are sorted in memory).
Status ForEachRankedPair(Store* store, const RankedVocab& vocab, const Store::PairVisitor& f);

}  // namespace streamglove

#endif  // STREAMGLOVE_STORE_RANKED_VOCAB_H_
