// SubsampledWindow: a pair's expected weight when word2vec's subsampling
// runs before the windows are formed.
//
// word2vec drops each occurrence of word w with probability 1 - p(w) before
// it forms windows, so the words it keeps move closer together: two words D
// in-vocabulary positions apart are still a pair when both are kept and at
// most W - 1 of the D - 1 words between them are kept, and they are then
// K + 1 apart, K the number kept between. Counting each pair by its
// expectation over the drops,
//
//   E[weight] = p(a) p(b) sum_{k < W} P(K = k) w(k + 1),
//
// with K a sum of independent Bernoulli(p(m)) over the words m between (a
// Poisson binomial), reproduces word2vec's subsampled windows without
// drawing them: the counts stay exact, order-free and resumable, and a
// training epoch over them sees the windows of every possible draw at once.
// w(d) is the store's distance weighting (linear for word2vec's dynamic
// window).
//
// Weigh walks back from the right word, carrying the distribution of K.
// Each increment is rounded to whole units of 1/scale; the walk stops once no
// farther pair can reach half a unit (P(K < W) only falls with D), or at
// reach() positions.
//
// Thread-safety: immutable after construction; Weigh is const.
#ifndef STREAMGLOVE_COOCCUR_SUBSAMPLED_WINDOW_H_
#define STREAMGLOVE_COOCCUR_SUBSAMPLED_WINDOW_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "streamglove/options.h"

namespace streamglove {

// How many times the window a subsampled pair may span. With every word
// between kept with probability 1/2 (about the mean on wiki100M and IMDB at
// t = 1e-4), P(K < W) at 8 W - 1 words is 2e-7 for W = 5 and less for wider
// windows; runs of the most frequent words (p(the) = 0.04) reach farther and
// are cut here.
inline constexpr uint32_t kSubsampleReachFactor = 8;

class SubsampledWindow {
 public:
  // keep[id]: p(id) (vocab/subsampling.h). window W, weighting w(d), scale:
  // units per count.
  SubsampledWindow(std::vector<double> keep, uint32_t window, DistanceWeighting weighting,
                   uint64_t scale);

  // The farthest in-vocabulary distance a pair may span.
  uint32_t reach() const { return reach_; }

  // For the pairs (end[-D], right), D = 1..n (n <= reach()): sets units[D - 1]
  // to the pair's expected weight in whole units. Returns how many of the
  // first entries it set (it stops early when every farther one would be 0).
  size_t Weigh(uint32_t right, const uint32_t* end, size_t n, uint64_t* units) const;

 private:
  std::vector<double> keep_;
  uint32_t window_;
  uint32_t reach_;
  std::vector<double> weight_;  // weight_[k]: w(k + 1) in units, k < W
};

}  // namespace streamglove

#endif  // STREAMGLOVE_COOCCUR_SUBSAMPLED_WINDOW_H_
