// WindowCounter and ChunkStitcher: Stanford GloVe's co-occurrence windows
// over a token stream that arrives in chunks processed in parallel.
//
// Semantics (glove/src/cooccur.c): out-of-vocabulary tokens (none in a
// growing store, whose vocabulary holds every word) are dropped before
// windowing, so distances count in-vocabulary tokens; a document end
// empties the window; the word at position j pairs with each of the up to W
// in-vocabulary words before it, at distance d = j - k, adding scale / d
// (or 1 without distance weighting) to cell (left, right) and, when
// symmetric, to (right, left).
//
// A WindowCounter counts the pairs whose both words lie in its chunk. A pair
// whose left word lies in an earlier chunk has its right word among the first
// W in-vocabulary tokens of the chunk's first document segment (its head);
// ChunkStitcher, run on chunks in order, counts those from the last W ids of
// the open document (its context). Every pair is counted exactly once.
//
// With subsampling before windowing (word2vec's; subsampled_window.h), a
// pair may span up to reach = 8 W in-vocabulary positions and adds its
// expected weight; heads, tails and contexts then hold `reach` ids.
//
// Thread-safety: each object is used by one thread at a time.
#ifndef STREAMGLOVE_COOCCUR_WINDOW_COUNTER_H_
#define STREAMGLOVE_COOCCUR_WINDOW_COUNTER_H_

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "cooccur/pair_accumulator.h"
#include "cooccur/subsampled_window.h"
#include "streamglove/tokenizer.h"
#include "util/token_lookahead.h"
#include "vocab/vocab_index.h"

namespace streamglove {

struct WindowConfig {
  uint32_t window = 10;
  bool symmetric = true;
  uint64_t scale = 2520;  // CountScale(window, weighting, subsampled != nullptr)
  DistanceWeighting weighting = DistanceWeighting::kHarmonic;
  // word2vec's subsampling before windowing, or null for none. Must outlive
  // the counters.
  const SubsampledWindow* subsampled = nullptr;

  // The farthest distance a pair may span.
  uint32_t reach() const { return subsampled != nullptr ? subsampled->reach() : window; }
};

// A chunk's edges, for stitching.
struct ChunkEdges {
  std::vector<uint32_t> head;  // first <= reach ids before the first document end
  bool has_document_end = false;
  std::vector<uint32_t> tail;   // last <= reach ids after the last document end
  uint64_t tokens = 0;          // all tokens, in and out of vocabulary
  uint64_t unknown_tokens = 0;  // out of vocabulary
  uint64_t increments = 0;      // pair increments counted
};

class WindowCounter final : public TokenSink {
 public:
  // `vocab`, `out` and `word_counts` (vocab->size() counters, or null) must
  // outlive this object; each in-vocabulary token adds 1 to its word's.
  WindowCounter(const VocabIndex* vocab, const WindowConfig& config, PairAccumulator* out,
                uint64_t* word_counts = nullptr);

  // Starts a chunk. REQUIRES: the previous chunk, if any, was ended.
  void BeginChunk(ChunkEdges* edges);
  // Counts the tokens still held back (TokenLookahead) and completes the
  // chunk's tail: the chunk's edges, word counts and pairs are complete only
  // now.
  void EndChunk();

  void OnToken(std::string_view token) override;
  void OnDocumentEnd() override;

 private:
  // Counts every token held back, oldest first.
  void Drain();
  void CountToken(std::string_view token, uint64_t hash);
  // Adds the pairs of `id` and the n ids before it, end[-1] .. end[-n].
  void AddWindow(uint32_t id, const uint32_t* end, uint64_t n);
  void AddSubsampledWindow(uint32_t id, const uint32_t* end, uint64_t n);

  const VocabIndex* vocab_;
  const uint32_t reach_;
  const bool symmetric_;
  std::vector<uint64_t> weight_;  // weight_[d] for 1 <= d <= window
  const SubsampledWindow* subsampled_;
  std::vector<uint64_t> units_;  // AddSubsampledWindow's weights
  PairAccumulator* out_;
  uint64_t* word_counts_;
  ChunkEdges* edges_ = nullptr;
  // The last `reach_` ids of the current segment, twice (see CountToken).
  std::vector<uint32_t> ring_;
  TokenLookahead lookahead_;
  uint64_t position_ = 0;  // in-vocabulary ids seen in the current segment
};

class ChunkStitcher {
 public:
  ChunkStitcher(const WindowConfig& config, PairAccumulator* out);

  // Counts the pairs between the open document's context and the chunk's
  // head, then advances the context. Call on chunks in corpus order.
  void Stitch(const ChunkEdges& edges);

  // The last <= reach ids of the open document (saved with resumable progress).
  const std::vector<uint32_t>& context() const { return context_; }
  void set_context(std::vector<uint32_t> context) { context_ = std::move(context); }

 private:
  const uint32_t window_;
  const uint32_t reach_;
  const bool symmetric_;
  std::vector<uint64_t> weight_;
  const SubsampledWindow* subsampled_;
  PairAccumulator* out_;
  std::vector<uint32_t> context_;
  std::vector<uint32_t> sequence_;  // context_ then the head, for subsampled weights
  std::vector<uint64_t> units_;
};

}  // namespace streamglove

#endif  // STREAMGLOVE_COOCCUR_WINDOW_COUNTER_H_
