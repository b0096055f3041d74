#include "train/sgns_model.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <unordered_map>
#include <utility>

#include "train/pair_update.h"
#include "train/subword_rows.h"
#include "util/split_mix.h"
#include "vocab/subsampling.h"

namespace streamglove {

std::vector<double> NoiseWeights(const std::vector<VocabEntry>& vocab, uint32_t cut, double power) {
  std::vector<double> w(cut);
  for (uint32_t i = 0; i < cut; ++i) w[i] = std::pow(static_cast<double>(vocab[i].count), power);
  return w;
}

std::vector<float> SubsampleKeepProbabilities(const std::vector<VocabEntry>& vocab, uint32_t cut,
                                              uint64_t tokens, double t) {
  std::vector<float> keep(cut);
  for (uint32_t i = 0; i < cut; ++i)
    keep[i] = static_cast<float>(SubsampleKeepProbability(vocab[i].count, tokens, t));
  return keep;
}

PairTransform SgnsTransform(std::vector<float> keep) {
  return {[keep = std::move(keep)](const PairRecord32& r) {
            return TrainingPair{r.row, r.col, 0.0f, r.count * keep[r.row] * keep[r.col]};
          },
          /*unit_updates=*/true};
}

SgnsModel::SgnsModel(uint32_t vocab, uint32_t dim, uint64_t seed, const SgnsHyper& hyper,
                     const AliasTable* noise, const SubwordIndex* subwords)
    : EmbeddingModel(vocab, dim, subwords, /*adagrad=*/false), hyper_(hyper), noise_(noise) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> uniform(-0.5f, 0.5f);
  for (size_t i = 0; i < vocab; ++i) {
    for (uint32_t b = 0; b < dim; ++b)
      word_[i * stride_ + b] = uniform(rng) / static_cast<float>(dim);
  }
}

double SgnsModel::StepContexts(const float* __restrict w, uint32_t col, const uint32_t* noise,
                               float lr, float* __restrict step_w) {
  const uint32_t d = dim_;
  for (uint32_t b = 0; b < d; ++b) step_w[b] = 0;
  double loss = 0;
  for (uint32_t k = 0; k <= hyper_.negatives; ++k) {
    const bool positive = k == 0;
    const uint32_t target = positive ? col : noise[k - 1];
    if (!positive && target == col) continue;  // as word2vec: the positive is not its own noise
    float* __restrict c = context_.data() + size_t{target} * stride_;
    float dot = 0;
#pragma omp simd reduction(+ : dot)  // any order: vector lanes (see GloveModel::Update)
    for (uint32_t b = 0; b < d; ++b) dot += w[b] * c[b];
    const float sigma = SgnsLogistic(dot, positive, &loss);
    const float g = ((positive ? 1.0f : 0.0f) - sigma) * lr;
    for (uint32_t b = 0; b < d; ++b) {
      step_w[b] += g * c[b];
      c[b] += g * w[b];
    }
  }
  return loss;
}

double SgnsModel::Update(uint32_t row, uint32_t col, const uint32_t* noise, float lr) {
  float* __restrict w = word_.data() + size_t{row} * stride_;
  alignas(64) float step_w[kMaxDim];
  const uint32_t d = dim_;
  double loss;
  if (subwords_ == nullptr) {
    loss = StepContexts(w, col, noise, lr, step_w);
  } else {
    alignas(64) float h[kMaxDim];
    subwords_->Gather(row, w, h);
    // Gather wrote h's dim_ components, all StepContexts reads; GCC cannot
    // tell, the loops' bound being a member the context steps might write.
#if defined(__GNUC__) && !defined(__clang__)  // clang has no such warning, and refuses its name
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
    loss = StepContexts(h, col, noise, lr, step_w);
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
    subwords_->AddStep(row, step_w);
  }
  for (uint32_t b = 0; b < d; ++b) w[b] += step_w[b];
  return loss;
}

void SgnsModel::PrefetchRow(const float* base, uint32_t i) const {
  for (uint32_t b = 0; b < stride_; b += 16) __builtin_prefetch(base + size_t{i} * stride_ + b, 1);
}

void SgnsModel::Prefetch(uint32_t row, uint32_t col, const uint32_t* noise) const {
  PrefetchRow(word_.data(), row);
  if (subwords_ != nullptr) subwords_->Prefetch(row);
  PrefetchRow(context_.data(), col);
  for (uint32_t k = 0; k < hyper_.negatives; ++k) PrefetchRow(context_.data(), noise[k]);
}

void SgnsModel::TrainRange(const TrainingPair* pairs, size_t n, const RangeContext& context,
                           RangeTotals* totals) {
  if (subwords_ != nullptr) return TrainRangeByWord(pairs, n, context, totals);
  // The noise words of the pair kAhead ahead are drawn now and their rows
  // prefetched, so that the random context rows, whose cache misses were
  // most of an update's time, arrive while earlier pairs train. The draws
  // come from the generator in the same order as drawn one pair at a time.
  constexpr size_t kAhead = 2;
  const uint32_t negatives = hyper_.negatives;
  std::vector<uint32_t> noise(kAhead * negatives);
  SplitMix64 random(context.seed);
  const auto draw = [&](size_t i) {
    uint32_t* slot = noise.data() + (i % kAhead) * negatives;
    for (uint32_t k = 0; k < negatives; ++k) slot[k] = NoiseWord(context, random.Next());
    Prefetch(pairs[i].row, pairs[i].col, slot);
  };
  for (size_t i = 0; i < std::min(n, kAhead); ++i) draw(i);
  double loss = 0;
  for (size_t i = 0; i < n; ++i) {
    const float lr = SgnsLearningRate(
        hyper_.eta, RangeProgress(context.progress_begin, context.progress_end, n, i));
    loss += Update(pairs[i].row, pairs[i].col, noise.data() + (i % kAhead) * negatives, lr);
    if (i + kAhead < n) draw(i + kAhead);
  }
  totals->loss += loss;
  totals->updates += n;
}

std::vector<uint32_t> SgnsModel::WordRunOrder(const TrainingPair* pairs, size_t n) {
  std::unordered_map<uint32_t, uint32_t> run_of;  // word -> its run, by first pair
  run_of.reserve(n);
  std::vector<uint32_t> run(n), starts;
  for (size_t i = 0; i < n; ++i) {
    const auto [it, added] = run_of.try_emplace(pairs[i].row, static_cast<uint32_t>(starts.size()));
    if (added) starts.push_back(0);
    run[i] = it->second;
    ++starts[it->second];
  }
  uint32_t at = 0;
  for (uint32_t& s : starts) at += std::exchange(s, at);
  std::vector<uint32_t> order(n);
  for (size_t i = 0; i < n; ++i) order[starts[run[i]]++] = static_cast<uint32_t>(i);
  return order;
}

void SgnsModel::TrainRangeByWord(const TrainingPair* pairs, size_t n, const RangeContext& context,
                                 RangeTotals* totals) {
  const std::vector<uint32_t> order = WordRunOrder(pairs, n);
  const uint32_t negatives = hyper_.negatives, d = dim_;
  // As TrainRange: the next pair's noise words are drawn, and its rows
  // prefetched, before this one trains.
  std::vector<uint32_t> noise(2 * negatives);
  SplitMix64 random(context.seed);
  const auto draw = [&](size_t i) {
    uint32_t* slot = noise.data() + (i % 2) * negatives;
    for (uint32_t k = 0; k < negatives; ++k) slot[k] = NoiseWord(context, random.Next());
    const TrainingPair& p = pairs[order[i]];
    if (i == 0 || p.row != pairs[order[i - 1]].row) {
      Prefetch(p.row, p.col, slot);  // a new run: its word's rows too
    } else {
      for (uint32_t k = 0; k < negatives; ++k) PrefetchRow(context_.data(), slot[k]);
      PrefetchRow(context_.data(), p.col);
    }
  };
  if (n > 0) draw(0);
  alignas(64) float h[kMaxDim];
  alignas(64) float step[kMaxDim];
  alignas(64) float run_step[kMaxDim];
  double loss = 0;
  for (size_t i = 0; i < n;) {
    const uint32_t row = pairs[order[i]].row;
    float* __restrict w = word_.data() + size_t{row} * stride_;
    subwords_->Gather(row, w, h);
    for (uint32_t b = 0; b < d; ++b) run_step[b] = 0;
    for (; i < n && pairs[order[i]].row == row; ++i) {
      if (i + 1 < n) draw(i + 1);
      const float lr = SgnsLearningRate(
          hyper_.eta, RangeProgress(context.progress_begin, context.progress_end, n, i));
      loss += StepContexts(h, pairs[order[i]].col, noise.data() + (i % 2) * negatives, lr, step);
      for (uint32_t b = 0; b < d; ++b) {
        h[b] += step[b];
        run_step[b] += step[b];
      }
    }
    subwords_->AddStep(row, run_step);
    for (uint32_t b = 0; b < d; ++b) w[b] += run_step[b];
  }
  totals->loss += loss;
  totals->updates += n;
}

}  // namespace streamglove
