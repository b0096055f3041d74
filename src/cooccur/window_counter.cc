#include "cooccur/window_counter.h"

#include <algorithm>
#include <cmath>

#include "cooccur/fixed_point.h"

namespace streamglove {

namespace {

// The scale makes every weight a whole number of units; rounding removes
// the floating-point error of 1/d.
std::vector<uint64_t> Weights(const WindowConfig& config) {
  std::vector<uint64_t> w(config.window + 1, 0);
  for (uint32_t d = 1; d <= config.window; ++d) {
    w[d] = static_cast<uint64_t>(std::llround(DistanceWeight(config.weighting, config.window, d) *
                                              static_cast<double>(config.scale)));
  }
  return w;
}

// Adds the pair (left, right), and (right, left) too when symmetric.
void AddPair(PairAccumulator* out, bool symmetric, uint32_t left, uint32_t right, uint64_t value) {
  if (symmetric) {
    out->AddBoth(left, right, value);
  } else {
    out->Add(left, right, value);
  }
}

}  // namespace

WindowCounter::WindowCounter(const VocabIndex* vocab, const WindowConfig& config,
                             PairAccumulator* out, uint64_t* word_counts)
    : vocab_(vocab),
      reach_(config.reach()),
      symmetric_(config.symmetric),
      weight_(Weights(config)),
      subsampled_(config.subsampled),
      units_(config.reach()),
      out_(out),
      word_counts_(word_counts),
      ring_(2 * size_t{config.reach()}, 0) {}

void WindowCounter::BeginChunk(ChunkEdges* edges) {
  edges_ = edges;
  edges_->head.clear();
  edges_->tail.clear();
  edges_->has_document_end = false;
  edges_->tokens = edges_->increments = edges_->unknown_tokens = 0;
  position_ = 0;
}

void WindowCounter::EndChunk() {
  Drain();
  const uint64_t n = std::min<uint64_t>(position_, reach_);
  for (uint64_t k = n; k > 0; --k) edges_->tail.push_back(ring_[(position_ - k) % reach_]);
}

void WindowCounter::OnToken(std::string_view token) {
  ++edges_->tokens;
  lookahead_.Push(
      token, [this](uint64_t hash) { vocab_->Prefetch(hash); },
      [this](std::string_view word, uint64_t hash) { CountToken(word, hash); });
}

void WindowCounter::Drain() {
  lookahead_.Drain([this](std::string_view word, uint64_t hash) { CountToken(word, hash); });
}

void WindowCounter::CountToken(std::string_view token, uint64_t hash) {
  const uint32_t id = vocab_->Lookup(token, hash);
  if (id == VocabIndex::kUnknown) {
    ++edges_->unknown_tokens;
    return;
  }
  if (word_counts_ != nullptr) ++word_counts_[id];
  // The ring holds each id twice, at i and i + reach, so the ids before this
  // one are ring_[slot + reach - d] without a division per pair.
  const size_t slot = position_ % reach_;
  const uint32_t* end = ring_.data() + slot + reach_;
  const uint64_t n = std::min<uint64_t>(position_, reach_);
  if (subsampled_ != nullptr) {
    AddSubsampledWindow(id, end, n);
  } else {
    AddWindow(id, end, n);
  }
  ring_[slot] = id;
  ring_[slot + reach_] = id;
  ++position_;
  if (!edges_->has_document_end && edges_->head.size() < reach_) edges_->head.push_back(id);
}

void WindowCounter::AddWindow(uint32_t id, const uint32_t* end, uint64_t n) {
  if (symmetric_) {
    for (uint64_t d = 1; d <= n; ++d)
      out_->AddBoth(end[-static_cast<ptrdiff_t>(d)], id, weight_[d]);
  } else {
    for (uint64_t d = 1; d <= n; ++d) out_->Add(end[-static_cast<ptrdiff_t>(d)], id, weight_[d]);
  }
  edges_->increments += symmetric_ ? 2 * n : n;
}

void WindowCounter::AddSubsampledWindow(uint32_t id, const uint32_t* end, uint64_t n) {
  const size_t m = subsampled_->Weigh(id, end, n, units_.data());
  for (size_t d = 1; d <= m; ++d) {
    if (units_[d - 1] == 0) continue;
    AddPair(out_, symmetric_, end[-static_cast<ptrdiff_t>(d)], id, units_[d - 1]);
    edges_->increments += symmetric_ ? 2 : 1;
  }
}

void WindowCounter::OnDocumentEnd() {
  Drain();
  edges_->has_document_end = true;
  position_ = 0;
}

ChunkStitcher::ChunkStitcher(const WindowConfig& config, PairAccumulator* out)
    : window_(config.window),
      reach_(config.reach()),
      symmetric_(config.symmetric),
      weight_(Weights(config)),
      subsampled_(config.subsampled),
      out_(out),
      units_(config.reach()) {}

void ChunkStitcher::Stitch(const ChunkEdges& edges) {
  const size_t m = context_.size();
  if (subsampled_ != nullptr) {
    // A pair's weight depends on every word between its two, head words
    // included.
    sequence_ = context_;
    sequence_.insert(sequence_.end(), edges.head.begin(), edges.head.end());
    for (size_t j = 0; j < edges.head.size() && j < reach_; ++j) {
      const uint32_t* end = sequence_.data() + m + j;
      const size_t n = std::min<size_t>(m + j, reach_);
      const size_t weighed = subsampled_->Weigh(edges.head[j], end, n, units_.data());
      // Distances up to j reach head words: the chunk's own counter has them.
      for (size_t d = j + 1; d <= weighed; ++d) {
        if (units_[d - 1] == 0) continue;
        AddPair(out_, symmetric_, end[-static_cast<ptrdiff_t>(d)], edges.head[j], units_[d - 1]);
      }
    }
  } else {
    for (size_t i = 0; i < m; ++i) {
      for (size_t j = 0; j < edges.head.size(); ++j) {
        const size_t d = (m - i) + j;
        if (d > window_) break;
        AddPair(out_, symmetric_, context_[i], edges.head[j], weight_[d]);
      }
    }
  }
  if (edges.has_document_end) {
    context_ = edges.tail;
  } else {
    context_.insert(context_.end(), edges.tail.begin(), edges.tail.end());
    if (context_.size() > reach_) context_.erase(context_.begin(), context_.end() - reach_);
  }
}

}  // namespace streamglove
