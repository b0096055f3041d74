#include <array>
#include <cmath>
#include <limits>
#include <random>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "eval/eval_fixture.h"
#include "eval/spearman.h"
#include "streamglove/eval.h"
#include "test_util.h"
#include "util/file.h"

using namespace streamglove;
using namespace streamglove::test;

TEST_CASE("Nearest neighbours by cosine, best first, query words excluded", "[eval]") {
  TestDir d("sg-eval-");
  const Embeddings e = Load(d.Write("toy.txt", kToyVectors));
  const WordMatcher m(e, CaseMode::kLower, 0);
  const auto n = NearestNeighbors(e, m, {m.Find("king")}, {}, 3);
  REQUIRE(n.size() == 3);
  CHECK(e.word(n[0].row) == "prince");
  for (size_t i = 1; i < n.size(); ++i) CHECK(n[i - 1].cosine >= n[i].cosine);
  for (const Neighbor& x : n) CHECK(x.row != m.Find("king"));
  // 3CosAdd through the neighbours API: man : king :: woman : queen.
  CHECK(e.word(NearestNeighbors(e, m, {m.Find("king"), m.Find("woman")}, {m.Find("man")}, 1)
                   .at(0)
                   .row) == "queen");
}
