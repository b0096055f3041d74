#include "cooccur/subsampled_window.h"

#include <algorithm>
#include <cmath>

#include "cooccur/fixed_point.h"

namespace streamglove {

SubsampledWindow::SubsampledWindow(std::vector<double> keep, uint32_t window,
                                   DistanceWeighting weighting, uint64_t scale)
    : keep_(std::move(keep)),
      window_(window),
      reach_(kSubsampleReachFactor * window),
      weight_(window) {
  for (uint32_t d = 1; d <= window; ++d)
    weight_[d - 1] = DistanceWeight(weighting, window, d) * static_cast<double>(scale);
}

size_t SubsampledWindow::Weigh(uint32_t right, const uint32_t* end, size_t n,
                               uint64_t* units) const {
  // between[k] = P(K = k) for the words between the next pair's two words,
  // k < W; the mass past W - 1 is dropped (such pairs are out of the window).
  double between[kMaxWindow];
  std::fill(between, between + window_, 0.0);
  between[0] = 1;
  double alive = 1;  // P(K < W)
  const double p_right = keep_[right];
  // Weights fall with distance: no later pair gets more than this bound.
  const double largest = p_right * weight_[0];
  for (size_t D = 1; D <= n; ++D) {
    if (alive * largest < 0.5) return D - 1;
    const uint32_t left = end[-static_cast<ptrdiff_t>(D)];
    double expected = 0;
    for (uint32_t k = 0; k < window_; ++k) expected += between[k] * weight_[k];
    const double p_left = keep_[left];
    units[D - 1] = static_cast<uint64_t>(std::llround(p_left * p_right * expected));
    // The left word is between the right word and every farther one; kept,
    // it pushes the mass at W - 1 out of the window.
    alive -= between[window_ - 1] * p_left;
    for (uint32_t k = window_ - 1; k > 0; --k)
      between[k] = between[k] * (1 - p_left) + between[k - 1] * p_left;
    between[0] *= 1 - p_left;
  }
  return n;
}

}  // namespace streamglove
