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

TEST_CASE("A subword model's unseen query word is its n-grams' vector", "[eval][subwords]") {
  TestDir d("sg-eval-");
  const ToySubwordModel toy(12);
  const std::string path = d.path() + "/toy.model";
  REQUIRE(toy.Write(path).ok());
  const Embeddings e = Load(path);
  const WordMatcher m(e, CaseMode::kExact, 0);
  std::mt19937 rng(5);
  for (int q = 0; q < 20; ++q) {
    std::string word = ToySubwordModel::RandomWord(&rng);
    if (m.Find(word) != Embeddings::kNotFound) continue;
    INFO(word);
    std::vector<float> v;
    REQUIRE(m.Vector(word, &v));
    const std::vector<double> expected = toy.Vector(word);
    for (uint32_t k = 0; k < e.dim(); ++k) CHECK(v[k] == Approx(expected[k]).margin(1e-6));
    // Every row a candidate (no query row to exclude), by cosine, best first.
    const auto n = NearestNeighbors(e, m, {QueryTerm(v)}, {}, e.size());
    REQUIRE(n.size() == e.size());
    for (const Neighbor& x : n) {
      const double cosine = Cosine(toy.Vector(e.word(x.row)), expected);
      CHECK(x.cosine == Approx(cosine).margin(1e-5));
    }
    for (size_t i = 1; i < n.size(); ++i) CHECK(n[i - 1].cosine >= n[i].cosine);
  }
}
