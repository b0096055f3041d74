#include "cooccur/window_counter.h"

#include <algorithm>

namespace streamglove {

namespace {

std::vector<uint64_t> Weights(const WindowConfig& config) {
  std::vector<uint64_t> w(config.window + 1, 0);
  for (uint32_t d = 1; d <= config.window; ++d) w[d] = config.distance_weighting ? config.scale / d : 1;
  return w;
}

}  // namespace

WindowCounter::WindowCounter(const VocabIndex* vocab, const WindowConfig& config, PairAccumulator* out)
    : vocab_(vocab),
      window_(config.window),
      symmetric_(config.symmetric),
      weight_(Weights(config)),
      out_(out),
      ring_(2 * size_t{config.window}, 0) {}

void WindowCounter::BeginChunk(ChunkEdges* edges) {
  edges_ = edges;
  edges_->head.clear();
  edges_->tail.clear();
  edges_->has_document_end = false;
  edges_->tokens = edges_->increments = 0;
  position_ = 0;
}

void WindowCounter::EndChunk() {
  const uint64_t n = std::min<uint64_t>(position_, window_);
  for (uint64_t k = n; k > 0; --k) edges_->tail.push_back(ring_[(position_ - k) % window_]);
}

void WindowCounter::OnToken(std::string_view token) {
  ++edges_->tokens;
  const uint32_t id = vocab_->Lookup(token);
  if (id == VocabIndex::kUnknown) return;
  const uint64_t n = std::min<uint64_t>(position_, window_);
  // The ring holds each id twice, at i and i + W, so the W ids before this
  // one are ring_[slot + W - d] without a division per pair.
  const size_t slot = position_ % window_;
  const uint32_t* before = ring_.data() + slot + window_;
  // The dense cells are random reads of a region far larger than the caches:
  // asking for all of them first lets their misses overlap.
  for (uint64_t d = 1; d <= n; ++d) {
    const uint32_t left = before[-static_cast<ptrdiff_t>(d)];
    out_->Prefetch(left, id);
    if (symmetric_) out_->Prefetch(id, left);
  }
  for (uint64_t d = 1; d <= n; ++d) {
    const uint32_t left = before[-static_cast<ptrdiff_t>(d)];
    out_->Add(left, id, weight_[d]);
    if (symmetric_) out_->Add(id, left, weight_[d]);
  }
  edges_->increments += symmetric_ ? 2 * n : n;
  ring_[slot] = id;
  ring_[slot + window_] = id;
  ++position_;
  if (!edges_->has_document_end && edges_->head.size() < window_) edges_->head.push_back(id);
}

void WindowCounter::OnDocumentEnd() {
  edges_->has_document_end = true;
  position_ = 0;
}

ChunkStitcher::ChunkStitcher(const WindowConfig& config, PairAccumulator* out)
    : window_(config.window), symmetric_(config.symmetric), weight_(Weights(config)), out_(out) {}

void ChunkStitcher::Stitch(const ChunkEdges& edges) {
  const size_t m = context_.size();
  for (size_t i = 0; i < m; ++i) {
    for (size_t j = 0; j < edges.head.size(); ++j) {
      const size_t d = (m - i) + j;
      if (d > window_) break;
      out_->Add(context_[i], edges.head[j], weight_[d]);
      if (symmetric_) out_->Add(edges.head[j], context_[i], weight_[d]);
    }
  }
  if (edges.has_document_end) {
    context_ = edges.tail;
  } else {
    context_.insert(context_.end(), edges.tail.begin(), edges.tail.end());
    if (context_.size() > window_) context_.erase(context_.begin(), context_.end() - window_);
  }
}

}  // namespace streamglove
