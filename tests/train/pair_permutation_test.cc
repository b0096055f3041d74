// PairPermutation (train/pair_permutation.h): the order a device trains its
// resident pairs in, checked here by brute force on the host, the kernels'
// own code.
#include "train/pair_permutation.h"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include <catch2/catch.hpp>

using namespace streamglove;

namespace {

std::vector<uint64_t> Order(uint64_t n, uint64_t seed) {
  const PairPermutation order(n, seed);
  std::vector<uint64_t> of(n);
  for (uint64_t t = 0; t < n; ++t) of[t] = order.Of(t);
  return of;
}

}  // namespace

TEST_CASE("A pair permutation visits every pair once, at any size", "[train][device]") {
  for (uint64_t n : {1, 2, 3, 4, 5, 17, 64, 1000, 4097, 65536, 100003}) {
    for (uint64_t seed : {1, 2, 77}) {
      INFO("n " << n << " seed " << seed);
      std::vector<uint64_t> of = Order(n, seed);
      std::vector<uint64_t> sorted = of;
      std::sort(sorted.begin(), sorted.end());
      std::vector<uint64_t> all(n);
      std::iota(all.begin(), all.end(), 0);
      REQUIRE(sorted == all);
      if (n >= 1000) {
        // Shuffled: few pairs stay in place, and seeds differ.
        uint64_t fixed = 0;
        for (uint64_t t = 0; t < n; ++t) fixed += of[t] == t;
        CHECK(fixed < n / 100);
        CHECK(of != Order(n, seed + 1));
      }
    }
  }
}

TEST_CASE("A pair permutation's first position is uniform over the seeds", "[train][device]") {
  // 10 pairs (a domain of 16, walked), 40,000 seeds: 4,000 each expected,
  // a standard deviation of 60.
  constexpr uint64_t kPairs = 10, kSeeds = 40000;
  std::vector<uint64_t> first(kPairs, 0);
  for (uint64_t seed = 0; seed < kSeeds; ++seed) ++first[PairPermutation(kPairs, seed).Of(0)];
  for (uint64_t i = 0; i < kPairs; ++i) {
    INFO("pair " << i);
    CHECK(first[i] > 3700);
    CHECK(first[i] < 4300);
  }
}
