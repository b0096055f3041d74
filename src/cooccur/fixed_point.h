// Exact co-occurrence arithmetic.
//
// A pair at distance d adds 1/d. Summed in floating point, the total would
// depend on the order of additions, so on threads and batches. Instead every
// count is kept as an integer number of units of 1/scale, where scale =
// lcm(1..window): every 1/d with d <= window is then a whole number of units,
// sums are exact and order-free, and counts are exposed as value / scale.
#ifndef STREAMGLOVE_COOCCUR_FIXED_POINT_H_
#define STREAMGLOVE_COOCCUR_FIXED_POINT_H_

#include <cstdint>
#include <numeric>

namespace streamglove {

// The largest window accepted: lcm(1..20) = 232,792,560 units per count
// leaves room for 7.9e10 counts in one cell before 64 bits overflow.
inline constexpr uint32_t kMaxWindow = 20;

// Units per count. REQUIRES: 1 <= window <= kMaxWindow.
inline uint64_t CountScale(uint32_t window, bool distance_weighting) {
  if (!distance_weighting) return 1;
  uint64_t l = 1;
  for (uint64_t d = 2; d <= window; ++d) l = std::lcm(l, d);
  return l;
}

}  // namespace streamglove

#endif  // STREAMGLOVE_COOCCUR_FIXED_POINT_H_
