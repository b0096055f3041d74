// WriteVectors against an independent computation: for every kind (w, w + a c,
// both) and format, the file read back by Embeddings holds the vocabulary's
// first words in order with the rows computed here, to the text formats'
// six decimals or exactly in binary.
#include "vectors/vectors_writer.h"

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "streamglove/embeddings.h"
#include "test_util.h"

using namespace streamglove;
using namespace streamglove::test;

TEST_CASE("Vectors files hold w, w + a c or both, in every format, as Embeddings reads them",
          "[vectors]") {
  constexpr uint32_t kWords = 7, kDim = 5, kStride = 8;
  // Two more words in the vocabulary than rows: only the rows' words are written.
  std::vector<VocabEntry> vocab;
  for (uint32_t i = 0; i < kWords + 2; ++i) vocab.push_back({fmt::format("w{}", i), 100 - i});
  vocab[3].word = "caf\xc3\xa9";  // UTF-8 kept as bytes
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<float> uniform(-2, 2);
  std::vector<float> word(kWords * kStride), context(kWords * kStride);
  for (float& x : word) x = uniform(rng);
  for (float& x : context) x = uniform(rng);
  const ParameterRows rows{kWords, kDim, kStride, word.data(), context.data()};
  TestDir dir("sg-vectors-writer-");
  // The context weight is 1 (the paper's) or a subword model's 0.2 for w + a c; the
  // other kinds ignore it.
  const float weight = GENERATE(1.0f, 0.2f);
  for (VectorsKind kind : {VectorsKind::kWord, VectorsKind::kWordPlusContext, VectorsKind::kBoth}) {
    for (VectorsFormat format : {VectorsFormat::kGloveText, VectorsFormat::kWord2VecText,
                                 VectorsFormat::kWord2VecBinary}) {
      INFO("kind " << static_cast<int>(kind) << ", format " << static_cast<int>(format)
                   << ", weight " << weight);
      const std::string path = dir.path() + "/v.txt";
      REQUIRE(WriteVectors(path, vocab, rows, kind, weight, format).ok());
      Embeddings e;
      const Status loaded = e.Load(path);
      INFO(loaded.ToString());
      REQUIRE(loaded.ok());
      CHECK(e.format() == format);
      REQUIRE(e.size() == kWords);
      const uint32_t dim = kind == VectorsKind::kBoth ? 2 * kDim : kDim;
      REQUIRE(e.dim() == dim);
      const double tolerance = format == VectorsFormat::kWord2VecBinary ? 0 : 5e-7;
      for (uint32_t i = 0; i < kWords; ++i) {
        CHECK(e.word(i) == vocab[i].word);
        for (uint32_t k = 0; k < dim; ++k) {
          const float* w = word.data() + i * kStride;
          const float* c = context.data() + i * kStride;
          const float want = kind == VectorsKind::kWord              ? w[k]
                             : kind == VectorsKind::kWordPlusContext ? w[k] + weight * c[k]
                             : k < kDim                              ? w[k]
                                                                     : c[k - kDim];
          CHECK(std::abs(e.value(i, k) - want) <= tolerance);
        }
      }
    }
  }
}

TEST_CASE("A vectors file that cannot be written names its path", "[vectors]") {
  std::vector<VocabEntry> vocab = {{"a", 1}};
  std::vector<float> row(16, 0.5f);
  const ParameterRows rows{1, 2, 16, row.data(), row.data()};
  const Status s = WriteVectors("/nonexistent-dir/v.txt", vocab, rows, VectorsKind::kWord, 1,
                                VectorsFormat::kGloveText);
  REQUIRE_FALSE(s.ok());
  CHECK(s.ToString().find("/nonexistent-dir/v.txt") != std::string::npos);
}
