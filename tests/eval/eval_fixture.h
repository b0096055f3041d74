// Helpers shared by the evaluation's tests: vectors loaded or the test
// stops, and a toy set whose analogies are known.
#ifndef STREAMGLOVE_TESTS_EVAL_EVAL_FIXTURE_H_
#define STREAMGLOVE_TESTS_EVAL_EVAL_FIXTURE_H_

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "streamglove/embeddings.h"
#include "streamglove/subwords.h"
#include "vectors/subword_model_file.h"

namespace streamglove::test {

inline Embeddings Load(const std::string& path) {
  Embeddings e;
  const Status s = e.Load(path);
  INFO(s.ToString());
  REQUIRE(s.ok());
  return e;
}

// Vectors whose analogies are known: a "royal" and a "female" direction, and
// distractors.
inline const char* kToyVectors =
    "man 1 0 0 0.1\n"
    "woman 1 1 0 0.1\n"
    "king 1 0 1 0.1\n"
    "queen 1 1 1 0.1\n"
    "boy 0.9 0 0 -0.2\n"
    "girl 0.9 1 0 -0.2\n"
    "prince 0.9 0 1 -0.3\n"
    "princess 0.9 1 1 -0.3\n"
    "Queen 1 1 1 0.12\n"
    "apple 0 0 0 5\n";

// A random subword model (docs/formats.md) written with WriteSubwordModel,
// and the vector of any word computed here from the same rows: the word's
// own row, else the mean of its n-grams' rows (zero for a bucket no word of
// the vocabulary reaches), in double.
struct ToySubwordModel {
  static constexpr uint32_t kDim = 6, kWords = 40;
  SubwordOptions options;
  std::vector<VocabEntry> vocab;
  std::vector<float> word, ngrams;  // kWords x kDim, buckets x kDim

  explicit ToySubwordModel(uint32_t seed) {
    options.chosen = options.enabled = true;
    options.min_n = 2;
    options.max_n = 4;
    options.buckets = 101;
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-1, 1);
    while (vocab.size() < kWords) {
      const std::string w = RandomWord(&rng);
      const bool seen =
          std::any_of(vocab.begin(), vocab.end(), [&](const VocabEntry& e) { return e.word == w; });
      if (!seen) vocab.push_back({w, kWords - vocab.size()});
    }
    word.resize(kWords * kDim);
    ngrams.resize(options.buckets * kDim);
    for (float& x : word) x = u(rng);
    for (float& x : ngrams) x = u(rng);
  }
  // Letters a-e, 1 to 6 of them: many shared n-grams, many unseen words.
  static std::string RandomWord(std::mt19937* rng) {
    std::string w(1 + (*rng)() % 6, 'a');
    for (char& c : w) c = static_cast<char>('a' + (*rng)() % 5);
    return w;
  }
  Status Write(const std::string& path) const {
    const ParameterRows rows{kWords, kDim, kDim, word.data(), word.data()};
    return WriteSubwordModel(path, vocab, rows, VectorsKind::kWord, 1,
                             NgramRows{options, kDim, ngrams.data()});
  }
  std::vector<double> Vector(const std::string& w) const {
    std::vector<double> v(kDim, 0.0);
    for (uint32_t i = 0; i < kWords; ++i) {
      if (vocab[i].word != w) continue;
      for (uint32_t k = 0; k < kDim; ++k) v[k] = word[i * kDim + k];
      return v;
    }
    std::vector<uint32_t> used;
    for (const VocabEntry& e : vocab)
      AppendNgramBuckets(e.word, options.min_n, options.max_n, options.buckets, &used);
    const std::vector<std::string> grams = CharNgrams(w, options.min_n, options.max_n);
    for (const std::string& g : grams) {
      const uint32_t b = NgramHash(g) % options.buckets;
      if (std::find(used.begin(), used.end(), b) == used.end()) continue;
      for (uint32_t k = 0; k < kDim; ++k) v[k] += ngrams[b * kDim + k];
    }
    for (double& x : v) x /= static_cast<double>(grams.size());
    return v;
  }
};

// cos(a, b) in double; 0 when either is zero.
inline double Cosine(const std::vector<double>& a, const std::vector<double>& b) {
  double dot = 0, na = 0, nb = 0;
  for (size_t k = 0; k < a.size(); ++k) {
    dot += a[k] * b[k];
    na += a[k] * a[k];
    nb += b[k] * b[k];
  }
  return na > 0 && nb > 0 ? dot / std::sqrt(na * nb) : 0;
}

}  // namespace streamglove::test

#endif  // STREAMGLOVE_TESTS_EVAL_EVAL_FIXTURE_H_
