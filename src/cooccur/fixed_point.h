// Exact co-occurrence arithmetic.
//
// A pair at distance d adds 1/d (or (W - d + 1) / W). Summed in floating
// point, the total would depend on the order of additions, so on threads and
// batches. Instead every count is kept as an integer number of units of
// 1/scale, where scale = lcm(1..window) (or W): every weight is then a whole
// number of units, sums are exact and order-free, and counts are exposed as
// value / scale.
#ifndef STREAMGLOVE_COOCCUR_FIXED_POINT_H_
#define STREAMGLOVE_COOCCUR_FIXED_POINT_H_

#include <cstdint>
#include <numeric>

#include "streamglove/options.h"

namespace streamglove {

// The largest window accepted: lcm(1..20) = 232,792,560 units per count
// leaves room for 7.9e10 counts in one cell before 64 bits overflow.
inline constexpr uint32_t kMaxWindow = 20;

// w(d), the weight of a pair at distance d (1 <= d <= window) as a fraction.
inline double DistanceWeight(DistanceWeighting weighting, uint32_t window, uint32_t d) {
  switch (weighting) {
    case DistanceWeighting::kHarmonic:
      return 1.0 / d;
    case DistanceWeighting::kLinear:
      return static_cast<double>(window - d + 1) / window;
    case DistanceWeighting::kNone:
      return 1;
  }
  return 1;
}

// Units per count of a store counted with subsampling before windowing
// (subsampled_window.h): its weights are not fractions of small integers, so
// a power of two, which leaves room for 2^44 = 1.8e13 whole counts in a
// cell.
inline constexpr uint64_t kSubsampledScale = uint64_t{1} << 20;

// Units per count (the weight of distance d, in units: scale / d, W - d + 1
// or 1). REQUIRES: 1 <= window <= kMaxWindow.
inline uint64_t CountScale(uint32_t window, DistanceWeighting weighting, bool subsampled) {
  if (subsampled) return kSubsampledScale;
  if (weighting == DistanceWeighting::kNone) return 1;
  if (weighting == DistanceWeighting::kLinear) return window;
  uint64_t l = 1;
  for (uint64_t d = 2; d <= window; ++d) l = std::lcm(l, d);
  return l;
}

}  // namespace streamglove

#endif  // STREAMGLOVE_COOCCUR_FIXED_POINT_H_
