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

namespace {

// The questions' answers, brute force in double: argmax over the candidates
// (first index on a tie) of the method's score, a, b, c excluded.
uint32_t BruteForceAnswer(const Embeddings& e, uint32_t n, uint32_t a, uint32_t b, uint32_t c,
                          bool cosmul) {
  auto cosine = [&](uint32_t x, uint32_t y) {
    double dot = 0, nx = 0, ny = 0;
    for (uint32_t k = 0; k < e.dim(); ++k) {
      dot += e.value(x, k) * e.value(y, k);
      nx += e.value(x, k) * e.value(x, k);
      ny += e.value(y, k) * e.value(y, k);
    }
    return dot / std::sqrt(nx * ny);
  };
  uint32_t best = UINT32_MAX;
  double top = -std::numeric_limits<double>::infinity();
  for (uint32_t x = 0; x < n; ++x) {
    if (x == a || x == b || x == c) continue;
    const double score =
        cosmul ? (1 + cosine(x, b)) / 2 * ((1 + cosine(x, c)) / 2) / ((1 + cosine(x, a)) / 2 + 1e-6)
               : cosine(x, b) - cosine(x, a) + cosine(x, c);
    if (score > top) {
      top = score;
      best = x;
    }
  }
  return best;
}

}  // namespace

TEST_CASE("Analogies on vectors whose answers are known", "[eval]") {
  TestDir d("sg-eval-");
  const Embeddings e = Load(d.Write("toy.txt", kToyVectors));
  const std::string questions = d.Write("q.txt",
                                        ": royal\n"
                                        "man king woman queen\n"
                                        "boy prince girl princess\n"
                                        "man king dragon queen\n"  // unknown word: skipped, counted
                                        ": gender\r\n"
                                        "KING QUEEN prince princess\r\n"
                                        "king queen man boy\n");  // wrong: woman is the answer
  AnalogyOptions options;
  options.semantic_sections = 1;
  AnalogyReport r;
  REQUIRE(EvaluateAnalogies(e, questions, options, &r).ok());
  REQUIRE(r.sections.size() == 2);
  CHECK(r.sections[0].name == "royal");
  CHECK(r.sections[0].questions == 3);
  CHECK(r.sections[0].seen == 2);
  CHECK(r.sections[0].correct == 2);
  CHECK(r.sections[1].name == "gender");
  CHECK(r.sections[1].seen == 2);
  CHECK(r.sections[1].correct == 1);
  CHECK(r.semantic.correct == 2);
  CHECK(r.syntactic.correct == 1);
  CHECK(r.total.questions == 5);
  CHECK(r.total.seen == 4);
  CHECK(r.total.correct == 3);

  // Exact case: "KING" is unknown, so the question is skipped.
  options.case_mode = CaseMode::kExact;
  REQUIRE(EvaluateAnalogies(e, questions, options, &r).ok());
  CHECK(r.sections[1].seen == 1);

  // Restricted to the first 6 words: princess (row 7) is no candidate, so
  // questions needing it are skipped.
  options.case_mode = CaseMode::kLower;
  options.restrict_vocab = 6;
  REQUIRE(EvaluateAnalogies(e, questions, options, &r).ok());
  CHECK(r.total.seen == 2);
  CHECK(r.total.correct == 1);

  options.restrict_vocab = 0;
  options.method = AnalogyMethod::kCosMul;
  REQUIRE(EvaluateAnalogies(e, questions, options, &r).ok());
  CHECK(r.total.correct == 3);
}

TEST_CASE("Case-insensitive matching excludes every variant of a question word", "[eval]") {
  TestDir d("sg-eval-");
  // "Queen" is a near copy of queen (row 3), later in the file.
  const Embeddings e = Load(d.Write("toy.txt", kToyVectors));
  const WordMatcher folded(e, CaseMode::kInsensitive, 0);
  CHECK(folded.Find("QUEEN") == 3);  // the first (most frequent) variant
  CHECK(folded.Variants(3) == std::vector<uint32_t>{3, 8});
  CHECK(folded.Canonical(8) == 3);
  // Neighbours of queen: its case variant is no answer when folding.
  const WordMatcher lower(e, CaseMode::kLower, 0);
  CHECK(NearestNeighbors(e, lower, {3}, {}, 1).at(0).row == 8);
  CHECK(NearestNeighbors(e, folded, {3}, {}, 1).at(0).row != 8);
}

TEST_CASE("Analogy answers equal a brute-force double computation on random vectors", "[eval]") {
  TestDir d("sg-eval-");
  std::mt19937_64 rng(3);
  std::normal_distribution<double> normal;
  const uint32_t words = 600, dim = 12;
  std::string text;
  for (uint32_t i = 0; i < words; ++i) {
    text += fmt::format("w{}", i);
    // Duplicate rows make exact ties: the first row must win them.
    std::mt19937_64 row_rng(i % 50 == 7 ? 7 : i + 1000);
    for (uint32_t k = 0; k < dim; ++k) text += fmt::format(" {:.6f}", normal(row_rng));
    text += "\n";
  }
  const Embeddings e = Load(d.Write("random.txt", text));
  std::string questions = ": all\n";
  std::vector<std::array<uint32_t, 3>> asked;
  for (int q = 0; q < 700; ++q) {
    std::array<uint32_t, 3> abc;
    for (auto& x : abc) x = rng() % words;
    if (abc[0] == abc[1] || abc[1] == abc[2] || abc[0] == abc[2]) continue;
    asked.push_back(abc);
  }
  for (bool cosmul : {false, true}) {
    for (uint32_t restrict_vocab : {0u, 300u}) {
      INFO("cosmul " << cosmul << " restrict " << restrict_vocab);
      const uint32_t n = restrict_vocab == 0 ? words : restrict_vocab;
      // Each question's expected answer is the brute-force one: all correct.
      std::string file = ": all\n";
      uint64_t expected_seen = 0;
      for (const auto& abc : asked) {
        if (abc[0] >= n || abc[1] >= n || abc[2] >= n) continue;
        const uint32_t answer = BruteForceAnswer(e, n, abc[0], abc[1], abc[2], cosmul);
        file += fmt::format("w{} w{} w{} w{}\n", abc[0], abc[1], abc[2], answer);
        ++expected_seen;
      }
      AnalogyOptions options;
      options.method = cosmul ? AnalogyMethod::kCosMul : AnalogyMethod::kCosAdd;
      options.restrict_vocab = restrict_vocab;
      AnalogyReport r;
      REQUIRE(EvaluateAnalogies(e, d.Write("q.txt", file), options, &r).ok());
      CHECK(r.total.seen == expected_seen);
      CHECK(r.total.correct == expected_seen);
    }
  }
}

TEST_CASE("A subword model answers questions whose a b c it never saw, among its words",
          "[eval][subwords]") {
  TestDir d("sg-eval-");
  const ToySubwordModel toy(11);
  const std::string path = d.path() + "/toy.model";
  REQUIRE(toy.Write(path).ok());
  const Embeddings e = Load(path);
  const uint32_t n = ToySubwordModel::kWords;
  // Questions of vocabulary words and unseen ones; each answer brute force
  // in double over the vectors computed here, the known question words
  // excluded, the unseen ones excluding nothing.
  std::mt19937 rng(4);
  std::string right, wrong;
  uint32_t unseen_words = 0;
  for (int q = 0; q < 60; ++q) {
    std::array<std::string, 3> w;
    for (std::string& x : w) {
      x = rng() % 2 == 0 ? toy.vocab[rng() % n].word : ToySubwordModel::RandomWord(&rng);
      unseen_words += e.Find(x) == Embeddings::kNotFound;
    }
    const auto va = toy.Vector(w[0]), vb = toy.Vector(w[1]), vc = toy.Vector(w[2]);
    uint32_t best = 0;
    double top = -std::numeric_limits<double>::infinity();
    for (uint32_t x = 0; x < n; ++x) {
      const std::string& word = toy.vocab[x].word;
      if (word == w[0] || word == w[1] || word == w[2]) continue;
      const auto vx = toy.Vector(word);
      const double score = Cosine(vx, vb) - Cosine(vx, va) + Cosine(vx, vc);
      if (score > top) {
        top = score;
        best = x;
      }
    }
    const std::string abc = fmt::format("{} {} {} ", w[0], w[1], w[2]);
    right += abc + toy.vocab[best].word + "\n";
    wrong += abc + toy.vocab[(best + 1) % n].word + "\n";
  }
  REQUIRE(unseen_words > 30);
  AnalogyOptions o;
  o.case_mode = CaseMode::kExact;
  AnalogyReport report;
  REQUIRE(EvaluateAnalogies(e, d.Write("right.txt", right), o, &report).ok());
  CHECK(report.total.questions == 60);
  CHECK(report.total.seen == 60);
  CHECK(report.total.correct == 60);
  REQUIRE(EvaluateAnalogies(e, d.Write("wrong.txt", wrong), o, &report).ok());
  CHECK(report.total.seen == 60);
  CHECK(report.total.correct == 0);
  // An answer outside the vocabulary is still a question skipped.
  const std::string unseen_answer =
      fmt::format("{} {} {} zzzz\n", toy.vocab[0].word, toy.vocab[1].word, toy.vocab[2].word);
  REQUIRE(EvaluateAnalogies(e, d.Write("unseen.txt", unseen_answer), o, &report).ok());
  CHECK(report.total.questions == 1);
  CHECK(report.total.seen == 0);
}
