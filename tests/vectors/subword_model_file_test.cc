// The subword model file: written from a model's rows, read back by
// Embeddings, an unseen word's vector against its n-grams' rows computed
// here, and damage refused at its offset.
#include "vectors/subword_model_file.h"

#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "streamglove/embeddings.h"
#include "streamglove/subwords.h"
#include "test_util.h"
#include "util/file.h"

using namespace streamglove;
using namespace streamglove::test;

namespace {

constexpr uint32_t kDim = 3, kStride = 16;

// FNV-1a of fastText, written here again from its definition (bytes
// sign-extended), for the test's own bucket of an n-gram.
uint32_t Fnv(const std::string& s) {
  uint32_t h = 2166136261u;
  for (char c : s) {
    h ^= static_cast<uint32_t>(static_cast<int32_t>(static_cast<signed char>(c)));
    h *= 16777619u;
  }
  return h;
}

struct Model {
  std::vector<VocabEntry> vocab = {{"cat", 5}, {"cats", 3}, {"café", 2}};
  std::vector<float> word = std::vector<float>(3 * kStride), context = word;
  std::vector<float> ngrams;
  SubwordOptions options;
  Model() {
    options.chosen = options.enabled = true;
    options.min_n = 2;
    options.max_n = 4;
    options.buckets = 97;
    ngrams.resize(options.buckets * kStride);
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> u(-1, 1);
    for (float* a : {word.data(), context.data()}) {
      for (size_t k = 0; k < 3 * kStride; ++k) a[k] = u(rng);
    }
    for (float& x : ngrams) x = u(rng);
  }
  ParameterRows rows() const { return {3, kDim, kStride, word.data(), context.data()}; }
  Status Write(const std::string& path, VectorsKind kind, float context_weight) const {
    return WriteSubwordModel(path, vocab, rows(), kind, context_weight,
                             NgramRows{options, kStride, ngrams.data()});
  }
};

}  // namespace

TEST_CASE("A model file gives its words' vectors and any other word its n-grams' mean",
          "[vectors][subwords]") {
  TestDir dir("sg-model-");
  const Model m;
  const std::string path = dir.path() + "/m.model";
  // A subword model's default: the context row weighs 0.2 (1 would hide a
  // weight applied twice or not at all).
  constexpr float kWeight = 0.2f;
  REQUIRE(m.Write(path, VectorsKind::kWordPlusContext, kWeight).ok());
  Embeddings e;
  REQUIRE(e.Load(path).ok());
  CHECK(e.format() == VectorsFormat::kSubwordModel);
  CHECK(e.has_subwords());
  REQUIRE(e.size() == 3);
  REQUIRE(e.dim() == kDim);
  std::vector<float> v;
  for (uint32_t i = 0; i < 3; ++i) {
    REQUIRE(e.WordVector(m.vocab[i].word, &v));
    for (uint32_t k = 0; k < kDim; ++k)
      CHECK(v[k] == m.word[i * kStride + k] + kWeight * m.context[i * kStride + k]);
  }
  // An unseen word: the mean over its n-grams (here, by hand) of their rows
  // (a row no vocabulary word uses is zero in the file: never trained).
  for (const std::string word : {"cafés", "at", "zzz", "é"}) {
    INFO(word);
    std::vector<uint32_t> used;
    for (const VocabEntry& w : m.vocab) AppendNgramBuckets(w.word, 2, 4, m.options.buckets, &used);
    const std::vector<std::string> grams = CharNgrams(word, 2, 4);
    REQUIRE_FALSE(grams.empty());
    std::vector<double> mean(kDim, 0);
    for (const std::string& g : grams) {
      const uint32_t b = Fnv(g) % m.options.buckets;
      CHECK(b == NgramHash(g) % m.options.buckets);
      if (std::find(used.begin(), used.end(), b) == used.end()) continue;
      for (uint32_t k = 0; k < kDim; ++k) mean[k] += m.ngrams[b * kStride + k];
    }
    REQUIRE(e.WordVector(word, &v));
    for (uint32_t k = 0; k < kDim; ++k) CHECK(v[k] == Approx(mean[k] / grams.size()));
  }
  // The scheme's n-grams of a short word, boundary marks included.
  CHECK(CharNgrams("é", 2, 4) == std::vector<std::string>{"<é", "<é>", "é>"});
  // A plain vectors file answers only its words.
  const std::string text = dir.path() + "/v.txt";
  WriteFile(text, "cat 1 2 3\n");
  REQUIRE(e.Load(text).ok());
  CHECK_FALSE(e.has_subwords());
  CHECK_FALSE(e.WordVector("cats", &v));
}

TEST_CASE("A damaged or truncated model file is refused at its offset", "[vectors][subwords]") {
  TestDir dir("sg-model-");
  const Model m;
  const std::string path = dir.path() + "/m.model";
  REQUIRE(m.Write(path, VectorsKind::kWord, 1).ok());
  const std::string good = ReadFile(path);
  Embeddings e;
  std::string bad = good;
  bad[good.size() / 2] ^= 0x10;
  WriteFile(path, bad);
  Status s = e.Load(path);
  CHECK(s.ToString().find(path + ": byte " + std::to_string(good.size() - 8) +
                          ": checksum mismatch") != std::string::npos);
  WriteFile(path, good.substr(0, good.size() - 5));
  s = e.Load(path);
  CHECK(s.code() == Status::Code::kCorruption);
  WriteFile(path, good.substr(0, 12));
  s = e.Load(path);
  CHECK(s.ToString().find("byte 12: truncated model file") != std::string::npos);
}
