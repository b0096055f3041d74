// The per-pair updates of GloVe and skip-gram as a group of lanes computes
// them, written once for the CPU and the GPU (util/host_device.h): the CUDA
// plugin's kernels (src/train/device/cuda/) run them on a warp, 32 lanes
// working on one pair; the CPU's tests run them on one lane, and on 32
// threads acting as lanes, against GloveModel and SgnsModel, so that the
// kernels' own code is checked on machines without a GPU.
//
// A Lanes type provides
//   static constexpr uint32_t kCount;  // lanes in the group
//   uint32_t lane() const;             // this lane, 0 to kCount - 1
//   float Sum(float x) const;          // every lane's x summed, the same
//                                      // value on every lane; all lanes call it
// Lane L holds components L, L + kCount, ... of a row, at most kPerLane of
// them (dim <= kCount * kPerLane), in registers on a GPU. A row's bias
// (component dim) is read and written by lane 0 alone. So no lane reads what
// another lane writes, and lanes need no barrier but Sum's. Every branch
// that decides whether an update is made depends only on Sum()s, so it is
// taken alike on every lane.
//
// The schedule's pieces (step scale, learning rate, a range's progress,
// SGNS's logistic) are the CPU models' own definitions too.
#ifndef STREAMGLOVE_TRAIN_PAIR_UPDATE_H_
#define STREAMGLOVE_TRAIN_PAIR_UPDATE_H_

#include <stddef.h>
#include <stdint.h>

#ifndef __CUDA_ARCH__
#include <cmath>
#endif

#include "util/host_device.h"

namespace streamglove {

// Arithmetic that is a library call on the CPU and an instruction on the
// GPU (the kernels link no library). The GPU's exp and log are the
// hardware's approximations (2 ulp), used only by SGNS's logistic.
namespace lane_math {

SG_HOST_DEVICE inline float Sqrt(float x) {
#ifdef __CUDA_ARCH__
  return __nvvm_sqrt_rn_f(x);
#else
  return std::sqrt(x);
#endif
}

SG_HOST_DEVICE inline float Exp(float x) {
#ifdef __CUDA_ARCH__
  return __nvvm_ex2_approx_f(x * 1.44269504088896341f);
#else
  return std::exp(x);
#endif
}

SG_HOST_DEVICE inline float Log1p(float x) {
#ifdef __CUDA_ARCH__
  return __nvvm_lg2_approx_f(1.0f + x) * 0.693147180559945309f;
#else
  return std::log1p(x);
#endif
}

SG_HOST_DEVICE inline bool IsFinite(float x) { return __builtin_isfinite(x); }

}  // namespace lane_math

// One lane that holds every component: the CPU's view of a group.
struct SerialLanes {
  static constexpr uint32_t kCount = 1;
  SG_HOST_DEVICE uint32_t lane() const { return 0; }
  SG_HOST_DEVICE float Sum(float x) const { return x; }
};

// Where pair i (from 0) of a range of n pairs, trained from progress p0 to
// p1 of the run, sits in the run.
SG_HOST_DEVICE inline double RangeProgress(double p0, double p1, uint64_t n, uint64_t i) {
  const double per_pair = n > 0 ? (p1 - p0) / static_cast<double>(n) : 0;
  return p0 + per_pair * static_cast<double>(i);
}

// GloVe recomputes its step scale every this many pairs of a range.
inline constexpr uint64_t kGloveScaleEvery = 1024;

// GloVe's step factor at `progress` (0 at the run's start, 1 at its end):
// step_scale, falling linearly to 0 over the last decay_fraction.
SG_HOST_DEVICE inline float GloveStepScale(double step_scale, double decay_fraction,
                                           double progress) {
  const double left = 1 - progress;
  if (decay_fraction <= 0 || left >= decay_fraction) return static_cast<float>(step_scale);
  return static_cast<float>(step_scale * (left > 0 ? left : 0.0) / decay_fraction);
}

// SGNS's learning rate at `progress`: eta falling linearly to eta / 10^4.
SG_HOST_DEVICE inline float SgnsLearningRate(float eta, double progress) {
  const double left = 1 - progress;
  return eta * static_cast<float>(left > 1e-4 ? left : 1e-4);
}

// A GloVe model's rows for one pair: word and context vectors (dim
// components, then the bias) and their squared-gradient sums.
struct GloveRows {
  float* word;
  float* context;
  float* word_gradsq;
  float* context_gradsq;
};

// glove.c's AdaGrad step on one pair (GloveModel::Update): clipped
// gradients, the components' steps times `scale`, the biases' without eta;
// nothing changes when the error or the weighted error is not finite
// (returns false). Adds the weighted cost to *cost.
template <class Lanes, uint32_t kPerLane>
SG_HOST_DEVICE bool GloveUpdateOnLanes(const Lanes& lanes, uint32_t dim, const GloveRows& rows,
                                       float log_count, float weight, float eta, float clip,
                                       float scale, double* cost) {
  const uint32_t lane = lanes.lane();
  float w[kPerLane], c[kPerLane];
  float dot = 0;
  SG_UNROLL for (uint32_t j = 0; j < kPerLane; ++j) {
    const uint32_t b = lane + j * Lanes::kCount;
    w[j] = b < dim ? rows.word[b] : 0.0f;
    c[j] = b < dim ? rows.context[b] : 0.0f;
    dot += w[j] * c[j];
  }
  if (lane == 0) dot += rows.word[dim] + rows.context[dim];
  const float diff = lanes.Sum(dot) - log_count;
  const float fdiff = weight * diff;
  if (!lane_math::IsFinite(diff) || !lane_math::IsFinite(fdiff)) return false;
  *cost += 0.5 * static_cast<double>(fdiff) * diff;

  float step_w[kPerLane], step_c[kPerLane];
  float sum_w = 0, sum_c = 0;
  SG_UNROLL for (uint32_t j = 0; j < kPerLane; ++j) {
    const uint32_t b = lane + j * Lanes::kCount;
    step_w[j] = step_c[j] = 0;
    if (b >= dim) continue;
    const float g1 = fdiff * c[j], g2 = fdiff * w[j];
    const float t1 = (g1 < -clip ? -clip : (g1 > clip ? clip : g1)) * eta;
    const float t2 = (g2 < -clip ? -clip : (g2 > clip ? clip : g2)) * eta;
    const float gw = rows.word_gradsq[b], gc = rows.context_gradsq[b];
    step_w[j] = scale * t1 / lane_math::Sqrt(gw);
    step_c[j] = scale * t2 / lane_math::Sqrt(gc);
    sum_w += step_w[j];
    sum_c += step_c[j];
    rows.word_gradsq[b] = gw + t1 * t1;
    rows.context_gradsq[b] = gc + t2 * t2;
  }
  sum_w = lanes.Sum(sum_w);
  sum_c = lanes.Sum(sum_c);
  if (lane_math::IsFinite(sum_w) && lane_math::IsFinite(sum_c)) {
    SG_UNROLL for (uint32_t j = 0; j < kPerLane; ++j) {
      const uint32_t b = lane + j * Lanes::kCount;
      if (b >= dim) continue;
      rows.word[b] -= step_w[j];
      rows.context[b] -= step_c[j];
    }
  }
  if (lane == 0) {
    const float bw = fdiff / lane_math::Sqrt(rows.word_gradsq[dim]);
    const float bc = fdiff / lane_math::Sqrt(rows.context_gradsq[dim]);
    if (lane_math::IsFinite(bw)) rows.word[dim] -= bw;
    if (lane_math::IsFinite(bc)) rows.context[dim] -= bc;
    rows.word_gradsq[dim] += fdiff * fdiff;
    rows.context_gradsq[dim] += fdiff * fdiff;
  }
  return true;
}

// Beyond |w.c| = 6, SGNS takes sigma as 0 or 1, as word2vec does.
inline constexpr float kSgnsMaxLogit = 6;

// sigma(dot), adding to *loss -log sigma(dot) for the positive context
// (log(1 + e^-dot)) or -log sigma(-dot) for a noise word (dot + log(1 +
// e^-dot)): one exp.
SG_HOST_DEVICE inline float SgnsLogistic(float dot, bool positive, double* loss) {
  if (dot > kSgnsMaxLogit) {
    *loss += positive ? lane_math::Exp(-dot) : dot;
    return 1;
  }
  if (dot < -kSgnsMaxLogit) {
    *loss += positive ? -dot : lane_math::Exp(dot);
    return 0;
  }
  const float e = lane_math::Exp(-dot);
  *loss += lane_math::Log1p(e) + (positive ? 0 : dot);
  return 1 / (1 + e);
}

// One positive update of (word, context column `col`) and its `negatives`
// noise words, noise_word(k) for k = 0 to negatives - 1 (a noise word equal
// to col is passed over, as word2vec does), at learning rate lr: the word's
// steps are summed and made at the end, each context row's at once
// (SgnsModel::Update). `contexts` is the context array, rows `stride`
// floats apart. Returns the update's loss.
template <class Lanes, uint32_t kPerLane, class NoiseWord>
SG_HOST_DEVICE double SgnsUpdateOnLanes(const Lanes& lanes, uint32_t dim, float* word_row,
                                        float* contexts, size_t stride, uint32_t col,
                                        uint32_t negatives, const NoiseWord& noise_word, float lr) {
  const uint32_t lane = lanes.lane();
  float w[kPerLane], step[kPerLane];
  SG_UNROLL for (uint32_t j = 0; j < kPerLane; ++j) {
    const uint32_t b = lane + j * Lanes::kCount;
    w[j] = b < dim ? word_row[b] : 0.0f;
    step[j] = 0;
  }
  double loss = 0;
  for (uint32_t k = 0; k <= negatives; ++k) {
    const bool positive = k == 0;
    const uint32_t target = positive ? col : noise_word(k - 1);
    if (!positive && target == col) continue;
    float* context_row = contexts + target * stride;
    float c[kPerLane];
    float dot = 0;
    SG_UNROLL for (uint32_t j = 0; j < kPerLane; ++j) {
      const uint32_t b = lane + j * Lanes::kCount;
      c[j] = b < dim ? context_row[b] : 0.0f;
      dot += w[j] * c[j];
    }
    const float sigma = SgnsLogistic(lanes.Sum(dot), positive, &loss);
    const float g = ((positive ? 1.0f : 0.0f) - sigma) * lr;
    SG_UNROLL for (uint32_t j = 0; j < kPerLane; ++j) {
      const uint32_t b = lane + j * Lanes::kCount;
      if (b >= dim) continue;
      step[j] += g * c[j];
      context_row[b] += g * w[j];
    }
  }
  SG_UNROLL for (uint32_t j = 0; j < kPerLane; ++j) {
    const uint32_t b = lane + j * Lanes::kCount;
    if (b < dim) word_row[b] += step[j];
  }
  return loss;
}

}  // namespace streamglove

#endif  // STREAMGLOVE_TRAIN_PAIR_UPDATE_H_
