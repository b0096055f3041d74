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
