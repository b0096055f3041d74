#include "cooccur/subsampled_window.h"

#include <cmath>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "cooccur/fixed_point.h"
#include "vocab/subsampling.h"

using namespace streamglove;

namespace {

double Weight(DistanceWeighting weighting, uint32_t window, uint32_t d) {
  if (weighting == DistanceWeighting::kHarmonic) return 1.0 / d;
  if (weighting == DistanceWeighting::kLinear) return static_cast<double>(window - d + 1) / window;
  return 1;
}

}  // namespace

// The oracle: every one of the 2^n keep/drop draws of word2vec's subsampling,
// its windows formed over the kept words, weighted by the draw's probability.
TEST_CASE("Subsampled weights equal the expectation over every draw", "[cooccur]") {
  std::mt19937_64 rng(7);
  for (const DistanceWeighting weighting :
       {DistanceWeighting::kHarmonic, DistanceWeighting::kLinear, DistanceWeighting::kNone}) {
    for (const uint32_t window : {1u, 2u, 3u, 5u}) {
      for (int trial = 0; trial < 4; ++trial) {
        std::vector<double> keep(6);
        for (double& p : keep) p = std::uniform_real_distribution<double>(0.02, 1.0)(rng);
        keep[trial % 6] = 1;  // a rare word
        const SubsampledWindow sw(keep, window, weighting, kSubsampledScale);
        const size_t n = std::min<size_t>(13, sw.reach() + 1);
        std::vector<uint32_t> ids(n);
        for (uint32_t& id : ids) id = static_cast<uint32_t>(rng() % keep.size());
        const uint32_t right = ids[n - 1];

        std::vector<double> expected(n - 1, 0.0);  // by distance D = n - 1 - a
        for (uint32_t draw = 0; draw < (1u << n); ++draw) {
          if ((draw >> (n - 1) & 1) == 0) continue;  // the right word dropped: no pair
          double p = 1;
          for (size_t i = 0; i < n; ++i) p *= (draw >> i & 1) ? keep[ids[i]] : 1 - keep[ids[i]];
          uint32_t kept_between = 0;
          for (size_t a = n - 1; a-- > 0;) {
            if ((draw >> a & 1) == 0) continue;
            if (kept_between + 1 <= window)
              expected[n - 2 - a] += p * Weight(weighting, window, kept_between + 1);
            ++kept_between;
          }
        }
        std::vector<uint64_t> units(n - 1, ~uint64_t{0});
        const size_t weighed = sw.Weigh(right, ids.data() + n - 1, n - 1, units.data());
        INFO("weighting " << DistanceWeightingName(weighting) << " window " << window << " trial "
                          << trial);
        for (size_t D = 1; D < n; ++D) {
          INFO("distance " << D);
          const double want = expected[D - 1] * kSubsampledScale;
          if (D <= weighed) {
            CHECK(std::abs(static_cast<double>(units[D - 1]) - want) <= 0.5 + 1e-6 * want);
          } else {
            CHECK(want < 0.5);  // stopped early only where nothing was left to add
          }
        }
      }
    }
  }
}

TEST_CASE("Keep probabilities are word2vec's", "[cooccur]") {
  // word2vec.c: ran = (sqrt(cn / (sample * train_words)) + 1) * (sample * train_words) / cn.
  const std::vector<uint64_t> counts = {600000, 30000, 1000, 10, 0};
  const double total = 631010, t = 1e-4;
  std::vector<double> keep;
  for (uint64_t count : counts) keep.push_back(SubsampleKeepProbability(count, 631010, t));
  for (size_t i = 0; i + 1 < counts.size(); ++i) {
    const double cn = static_cast<double>(counts[i]);
    const double ran = (std::sqrt(cn / (t * total)) + 1) * (t * total) / cn;
    CHECK(keep[i] == Approx(std::min(1.0, ran)).epsilon(1e-12));
  }
  CHECK(keep[0] < 0.02);
  CHECK(keep[3] == 1);
}
