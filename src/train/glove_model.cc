#include "train/glove_model.h"

#include <cmath>
#include <random>

#include "train/subword_rows.h"

namespace streamglove {

PairTransform GloveTransform(double x_max, double alpha) {
  // (x / x_max)^alpha as exp(alpha (log x - log x_max)): the one log serves
  // both figures, and pow cost twice log and exp together (every pair of
  // every epoch goes through here).
  const double log_x_max = std::log(x_max);
  return {[x_max, alpha, log_x_max](const PairRecord32& r) {
            const double x = r.count, log_x = std::log(x);
            return TrainingPair{
                r.row, r.col, static_cast<float>(log_x),
                static_cast<float>(x >= x_max ? 1.0 : std::exp(alpha * (log_x - log_x_max)))};
          },
          /*unit_updates=*/false};
}

GloveModel::GloveModel(uint32_t vocab, uint32_t dim, uint64_t seed, const GloveHyper& hyper,
                       const SubwordIndex* subwords)
    : EmbeddingModel(vocab, dim, subwords, /*adagrad=*/true),
      hyper_(hyper),
      word_gradsq_(size_t{vocab} * stride_),
      context_gradsq_(size_t{vocab} * stride_) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> uniform(-0.5f, 0.5f);
  for (LargeArray<float>* a : {&word_, &context_}) {
    for (size_t i = 0; i < vocab; ++i) {
      for (uint32_t b = 0; b <= dim; ++b)
        (*a)[i * stride_ + b] = uniform(rng) / static_cast<float>(dim);
    }
  }
  for (LargeArray<float>* a : {&word_gradsq_, &context_gradsq_}) {
    for (size_t i = 0; i < vocab; ++i) {
      for (uint32_t b = 0; b <= dim; ++b) (*a)[i * stride_ + b] = 1.0f;
    }
  }
}

bool GloveModel::Update(const TrainingPair& pair, float scale, double* cost) {
  if (subwords_ != nullptr) return UpdateSubword(pair, scale, cost);
  const GloveHyper& h = hyper_;
  float* __restrict w = word_.data() + size_t{pair.row} * stride_;
  float* __restrict c = context_.data() + size_t{pair.col} * stride_;
  float* __restrict gw = word_gradsq_.data() + size_t{pair.row} * stride_;
  float* __restrict gc = context_gradsq_.data() + size_t{pair.col} * stride_;
  const uint32_t d = dim_;
  // The reductions (`omp simd`) may add in any order, so the loops run on
  // vector lanes instead of one float after another (-fopenmp-simd; the
  // square roots vectorise because of -fno-math-errno).
  float dot = 0;
#pragma omp simd reduction(+ : dot)
  for (uint32_t b = 0; b < d; ++b) dot += w[b] * c[b];
  const float diff = dot + w[d] + c[d] - pair.log_count;
  const float fdiff = pair.weight * diff;
  if (!std::isfinite(diff) || !std::isfinite(fdiff)) return false;
  *cost += 0.5 * static_cast<double>(fdiff) * diff;

  alignas(64) float update_w[kMaxDim];
  alignas(64) float update_c[kMaxDim];
  float sum_w = 0, sum_c = 0;
  const float clip = h.grad_clip;
  // Plain comparisons, not std::fmin/fmax: those are library calls (for their
  // NaN rules) that keep this loop scalar; fdiff and the rows are finite here.
#pragma omp simd reduction(+ : sum_w, sum_c)
  for (uint32_t b = 0; b < d; ++b) {
    const float g1 = fdiff * c[b], g2 = fdiff * w[b];
    const float t1 = (g1 < -clip ? -clip : (g1 > clip ? clip : g1)) * h.eta;
    const float t2 = (g2 < -clip ? -clip : (g2 > clip ? clip : g2)) * h.eta;
    update_w[b] = scale * t1 / std::sqrt(gw[b]);
    update_c[b] = scale * t2 / std::sqrt(gc[b]);
    sum_w += update_w[b];
    sum_c += update_c[b];
    gw[b] += t1 * t1;
    gc[b] += t2 * t2;
  }
  if (std::isfinite(sum_w) && std::isfinite(sum_c)) {
    for (uint32_t b = 0; b < d; ++b) {
      w[b] -= update_w[b];
      c[b] -= update_c[b];
    }
  }
  // As glove.c: the bias steps use fdiff without eta. Not scaled either:
  // glove.c's already overshoot on a pair's first update (sums start at 1),
  // and scaled ones diverge (scale 2.5 did on wiki100M, where scale 3 on the
  // components alone trains well).
  const float bw = fdiff / std::sqrt(gw[d]), bc = fdiff / std::sqrt(gc[d]);
  if (std::isfinite(bw)) w[d] -= bw;
  if (std::isfinite(bc)) c[d] -= bc;
  gw[d] += fdiff * fdiff;
  gc[d] += fdiff * fdiff;
  return true;
}

bool GloveModel::UpdateSubword(const TrainingPair& pair, float scale, double* cost) {
  const GloveHyper& hy = hyper_;
  float* __restrict w = word_.data() + size_t{pair.row} * stride_;
  float* __restrict c = context_.data() + size_t{pair.col} * stride_;
  float* __restrict gw = word_gradsq_.data() + size_t{pair.row} * stride_;
  float* __restrict gc = context_gradsq_.data() + size_t{pair.col} * stride_;
  const uint32_t d = dim_;
  alignas(64) float h[kMaxDim];
  subwords_->Gather(pair.row, w, h);
  float dot = 0;
#pragma omp simd reduction(+ : dot)
  for (uint32_t b = 0; b < d; ++b) dot += h[b] * c[b];
  const float diff = dot + w[d] + c[d] - pair.log_count;
  const float fdiff = pair.weight * diff;
  if (!std::isfinite(diff) || !std::isfinite(fdiff)) return false;
  *cost += 0.5 * static_cast<double>(fdiff) * diff;

  // The word side's clipped gradient times eta (t_w) steps the word's row
  // and each n-gram row by AdaGrad with the row's own sums.
  alignas(64) float t_w[kMaxDim];
  alignas(64) float update_w[kMaxDim];
  alignas(64) float update_c[kMaxDim];
  float sum_w = 0, sum_c = 0;
  const float clip = hy.grad_clip;
#pragma omp simd reduction(+ : sum_w, sum_c)
  for (uint32_t b = 0; b < d; ++b) {
    const float g1 = fdiff * c[b], g2 = fdiff * h[b];
    const float t1 = (g1 < -clip ? -clip : (g1 > clip ? clip : g1)) * hy.eta;
    const float t2 = (g2 < -clip ? -clip : (g2 > clip ? clip : g2)) * hy.eta;
    t_w[b] = t1;
    update_w[b] = scale * t1 / std::sqrt(gw[b]);
    update_c[b] = scale * t2 / std::sqrt(gc[b]);
    sum_w += update_w[b];
    sum_c += update_c[b];
    gw[b] += t1 * t1;
    gc[b] += t2 * t2;
  }
  if (std::isfinite(sum_w) && std::isfinite(sum_c)) {
    for (uint32_t b = 0; b < d; ++b) {
      w[b] -= update_w[b];
      c[b] -= update_c[b];
    }
    subwords_->AdaGradStep(pair.row, t_w, scale);
  }
  const float bw = fdiff / std::sqrt(gw[d]), bc = fdiff / std::sqrt(gc[d]);
  if (std::isfinite(bw)) w[d] -= bw;
  if (std::isfinite(bc)) c[d] -= bc;
  gw[d] += fdiff * fdiff;
  gc[d] += fdiff * fdiff;
  return true;
}

void GloveModel::Prefetch(const TrainingPair& pair) const {
  const size_t w = size_t{pair.row} * stride_, c = size_t{pair.col} * stride_;
  for (uint32_t b = 0; b < stride_; b += 16) {
    __builtin_prefetch(word_.data() + w + b, 1);
    __builtin_prefetch(word_gradsq_.data() + w + b, 1);
    __builtin_prefetch(context_.data() + c + b, 1);
    __builtin_prefetch(context_gradsq_.data() + c + b, 1);
  }
  if (subwords_ != nullptr) subwords_->Prefetch(pair.row);
}

void GloveModel::TrainRange(const TrainingPair* pairs, size_t n, const RangeContext& context,
                            RangeTotals* totals) {
  constexpr size_t kAhead = 8;  // pairs whose rows are being fetched
  double cost = 0;
  uint64_t skipped = 0;
  float scale = 1;
  for (size_t i = 0; i < n; ++i) {
    if (i % kGloveScaleEvery == 0) {
      scale = hyper_.StepScale(RangeProgress(context.progress_begin, context.progress_end, n, i));
    }
    if (i + kAhead < n) Prefetch(pairs[i + kAhead]);
    if (!Update(pairs[i], scale, &cost)) ++skipped;
  }
  totals->loss += cost;
  totals->updates += n;
  totals->skipped += skipped;
}

}  // namespace streamglove
