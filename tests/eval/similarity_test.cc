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

TEST_CASE("Similarity files: CRLF, no final newline, unknown words, malformed lines", "[eval]") {
  TestDir d("sg-eval-");
  const Embeddings e = Load(d.Write("toy.txt", kToyVectors));
  SimilarityReport r;
  const std::string pairs = d.Write(
      "pairs.txt",
      "king\tqueen\t9\r\nman\tapple\t1\r\nMan\tWoman\t8\r\nboy\tdragon\t5\r\nboy\tgirl\t7.5");
  REQUIRE(EvaluateSimilarity(e, pairs, CaseMode::kLower, &r).ok());
  CHECK(r.pairs == 5);
  CHECK(r.seen == 4);
  auto cosine = [&](uint32_t x, uint32_t y) {
    double dot = 0;
    for (uint32_t k = 0; k < e.dim(); ++k) dot += e.value(x, k) * e.value(y, k);
    return dot / (e.norm(x) * e.norm(y));
  };
  CHECK(r.spearman ==
        Approx(Spearman({9, 1, 8, 7.5}, {cosine(2, 3), cosine(0, 9), cosine(0, 1), cosine(4, 5)}))
            .epsilon(1e-12));
  const std::string bad = d.Write("bad.txt", "king\tqueen\t9\nman woman 8\n");
  const Status s = EvaluateSimilarity(e, bad, CaseMode::kLower, &r);
  CHECK(s.message() == bad + ": line 2: expected word1<TAB>word2<TAB>score: 'man woman 8'");
  const std::string questions = d.Write("q.txt", ": x\nman king woman\n");
  AnalogyReport a;
  CHECK(EvaluateAnalogies(e, questions, AnalogyOptions(), &a).message() ==
        questions + ": line 2: expected four words: 'man king woman'");
}

TEST_CASE("A subword model answers every pair: cosines of n-gram vectors", "[eval][subwords]") {
  TestDir d("sg-eval-");
  const ToySubwordModel toy(13);
  const std::string path = d.path() + "/toy.model";
  REQUIRE(toy.Write(path).ok());
  const Embeddings e = Load(path);
  std::mt19937 rng(6);
  std::string pairs;
  std::vector<double> human, cosines;
  for (int i = 0; i < 50; ++i) {
    const std::string a = ToySubwordModel::RandomWord(&rng);
    const std::string b =
        i % 3 == 0 ? toy.vocab[rng() % toy.vocab.size()].word : ToySubwordModel::RandomWord(&rng);
    human.push_back(static_cast<double>(rng() % 1000) / 100);
    cosines.push_back(Cosine(toy.Vector(a), toy.Vector(b)));
    pairs += fmt::format("{}\t{}\t{}\n", a, b, human.back());
  }
  SimilarityReport report;
  REQUIRE(EvaluateSimilarity(e, d.Write("pairs.txt", pairs), CaseMode::kExact, &report).ok());
  CHECK(report.pairs == 50);
  CHECK(report.seen == 50);
  CHECK(report.spearman == Approx(Spearman(human, cosines)).margin(1e-9));
}
