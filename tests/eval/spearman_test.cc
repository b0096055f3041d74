#include "eval/spearman.h"

#include <array>
#include <cmath>
#include <limits>
#include <random>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "eval/eval_fixture.h"
#include "streamglove/eval.h"
#include "test_util.h"
#include "util/file.h"

using namespace streamglove;
using namespace streamglove::test;

TEST_CASE("Spearman's rho gives ties their average rank", "[eval]") {
  CHECK(AverageRanks({10, 20, 20, 40}) == std::vector<double>{1, 2.5, 2.5, 4});
  // Without ties: 1 - 6 sum(d^2) / (n (n^2 - 1)).
  CHECK(Spearman({1, 2, 3, 4, 5}, {2, 1, 4, 3, 5}) == Approx(1 - 6.0 * 4 / (5 * 24)));
  // By hand: ranks x (1, 2.5, 2.5, 4), y (1, 3, 2, 4): 4.5 / sqrt(4.5 * 5).
  CHECK(Spearman({1, 2, 2, 4}, {1, 3, 2, 4}) == Approx(4.5 / std::sqrt(22.5)).epsilon(1e-12));
  CHECK(std::isnan(Spearman({1}, {2})));
  CHECK(std::isnan(Spearman({1, 1, 1}, {1, 2, 3})));
}
