// Subword models: the n-gram rows' arithmetic, and each objective's steps on
// a word's rows against finite differences of its loss.
#include "train/subword_rows.h"

#include <cmath>
#include <functional>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "streamglove/subwords.h"
#include "train/glove_model.h"
#include "train/sgns_model.h"
#include "util/alias_table.h"
#include "vocab/subword_index.h"

using namespace streamglove;

namespace {

constexpr uint32_t kDim = 5;

// Three words whose n-grams share buckets: 11 buckets make collisions
// (repeated buckets within a word included), which the steps must count.
std::vector<VocabEntry> Words() { return {{"ab", 9}, {"abc", 5}, {"née", 3}}; }

SubwordOptions Scheme() {
  SubwordOptions o;
  o.enabled = true;
  o.min_n = 2;
  o.max_n = 4;
  o.buckets = 11;
  return o;
}

// A word's rows as the test sees them: its own row, then its buckets' rows,
// repeats included.
std::vector<float*> WordRows(float* words, float* ngrams, const SubwordIndex& index, uint32_t i) {
  const size_t stride = RowStride(kDim);
  std::vector<float*> rows = {words + i * stride};
  for (uint32_t k = 0; k < index.ngram_count(i); ++k)
    rows.push_back(ngrams + size_t{index.ngrams(i)[k]} * stride);
  return rows;
}

// The mean of `rows`, in double.
std::vector<double> Mean(const std::vector<float*>& rows) {
  std::vector<double> h(kDim, 0);
  for (const float* r : rows) {
    for (uint32_t b = 0; b < kDim; ++b) h[b] += r[b];
  }
  for (double& x : h) x /= static_cast<double>(rows.size());
  return h;
}

void Randomize(LargeArray<float>* a, uint64_t seed, float scale) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(-scale, scale);
  for (size_t k = 0; k < a->size(); ++k) (*a)[k] = u(rng);
}

// d loss / d x[b] for every component b of every distinct row of `rows`,
// by central differences of `loss` (which reads the rows), in the order of
// `rows` (a repeated row gets the whole derivative at its first place, 0
// after: what its steps add up to).
std::vector<std::vector<double>> NumericGradient(const std::vector<float*>& rows,
                                                 const std::function<double()>& loss) {
  std::vector<std::vector<double>> grad(rows.size(), std::vector<double>(kDim, 0));
  for (size_t r = 0; r < rows.size(); ++r) {
    bool seen = false;
    for (size_t q = 0; q < r; ++q) seen |= rows[q] == rows[r];
    if (seen) continue;
    for (uint32_t b = 0; b < kDim; ++b) {
      const float x = rows[r][b];
      const float eps = 1e-2f;
      rows[r][b] = x + eps;
      const double up = loss();
      rows[r][b] = x - eps;
      const double down = loss();
      rows[r][b] = x;
      grad[r][b] = (up - down) / (2.0 * eps);
    }
  }
  return grad;
}

// Each distinct row's change, against `expected` (NumericGradient's shape).
void CheckSteps(const std::vector<float*>& rows, const std::vector<std::vector<float>>& before,
                const std::vector<std::vector<double>>& expected) {
  for (size_t r = 0; r < rows.size(); ++r) {
    bool seen = false;
    for (size_t q = 0; q < r; ++q) seen |= rows[q] == rows[r];
    if (seen) continue;
    for (uint32_t b = 0; b < kDim; ++b) {
      INFO("row " << r << " component " << b);
      CHECK(rows[r][b] - before[r][b] == Approx(expected[r][b]).epsilon(2e-3).margin(1e-6));
    }
  }
}

std::vector<std::vector<float>> Copy(const std::vector<float*>& rows) {
  std::vector<std::vector<float>> copy;
  for (const float* r : rows) copy.emplace_back(r, r + kDim);
  return copy;
}

}  // namespace

TEST_CASE("A word's input vector is the mean of its rows, and its steps reach each of them",
          "[train][subwords]") {
  const SubwordIndex index(Words(), 3, Scheme());
  // "<ab>" has 2..4-grams "<a" "ab" "b>" "<ab" "ab>" "<ab>": six buckets.
  REQUIRE(index.ngram_count(0) == 6);
  REQUIRE(index.ngram_count(2) == CharNgrams("née", 2, 4).size());
  SubwordRows rows(&index, kDim, /*adagrad=*/true);
  LargeArray<float> words(3 * RowStride(kDim));
  Randomize(&words, 1, 1);
  auto arrays = rows.CheckpointArrays();
  REQUIRE(arrays.size() == 2);
  Randomize(arrays[0], 2, 1);
  float* ngrams = arrays[0]->data();
  for (uint32_t i = 0; i < 3; ++i) {
    const std::vector<float*> mine = WordRows(words.data(), ngrams, index, i);
    std::vector<float> h(kDim);
    rows.Gather(i, mine[0], h.data());
    const std::vector<double> expected = Mean(mine);
    for (uint32_t b = 0; b < kDim; ++b) CHECK(h[b] == Approx(expected[b]).epsilon(1e-5));
  }
  // SGD: every n-gram row of the word moves by the step, once per
  // occurrence of its bucket.
  const std::vector<float*> abc = WordRows(words.data(), ngrams, index, 1);
  const auto before = Copy(abc);
  const std::vector<float> step = {0.5f, -1, 0.25f, 2, -0.125f};
  rows.AddStep(1, step.data());
  for (size_t r = 1; r < abc.size(); ++r) {
    size_t times = 0;
    for (size_t q = 1; q < abc.size(); ++q) times += abc[q] == abc[r];
    for (uint32_t b = 0; b < kDim; ++b)
      CHECK(abc[r][b] == Approx(before[r][b] + static_cast<float>(times) * step[b]));
  }
  // Folding leaves each word row its input vector, the bias slot as it was.
  const float bias = words[RowStride(kDim) + kDim];
  const std::vector<double> h1 = Mean(WordRows(words.data(), ngrams, index, 1));
  rows.FoldIntoWords(words.data());
  for (uint32_t b = 0; b < kDim; ++b) CHECK(words[RowStride(kDim) + b] == Approx(h1[b]));
  CHECK(words[RowStride(kDim) + kDim] == bias);
}

TEST_CASE("A subword GloVe step is AdaGrad on each of the word's rows along the loss's gradient",
          "[train][subwords]") {
  const SubwordIndex index(Words(), 3, Scheme());
  const float eta = 0.05f;
  GloveModel model(3, kDim, 7, GloveHyper{eta, 100.0f, 1, 0}, &index);
  auto arrays = model.CheckpointArrays();  // word, context, their sums, n-grams, their sums
  REQUIRE(arrays.size() == 6);
  Randomize(arrays[4], 3, 0.5f);
  const size_t stride = RowStride(kDim);
  const TrainingPair pair{2, 1, std::log(3.0f), 0.7f};
  const std::vector<float*> rows = WordRows(arrays[0]->data(), arrays[4]->data(), index, pair.row);
  float* context = arrays[1]->data() + pair.col * stride;
  const float bias_w = arrays[0]->data()[pair.row * stride + kDim];
  const double bias_c = context[kDim];
  // J = f (h.c + b + b~ - log x)^2 / 2, h the mean of the word's rows.
  const auto loss = [&] {
    const std::vector<double> h = Mean(rows);
    double dot = bias_w + bias_c - pair.log_count;
    for (uint32_t b = 0; b < kDim; ++b) dot += h[b] * context[b];
    return 0.5 * pair.weight * dot * dot;
  };
  std::vector<float*> all = rows;
  all.push_back(context);
  auto grad = NumericGradient(all, loss);
  // Fresh AdaGrad sums are 1: the first step is eta times the gradient,
  // which fastText's convention takes with respect to h (the mean) for
  // every row of the word: n + 1 times the gradient with respect to one.
  const double word_rows = static_cast<double>(rows.size());
  for (size_t r = 0; r < all.size(); ++r) {
    for (double& g : grad[r]) g *= -eta * (r + 1 < all.size() ? word_rows : 1.0);
  }
  const auto before = Copy(all);
  const double expected_cost = loss();
  double cost = 0;
  REQUIRE(model.Update(pair, 1, &cost));
  CHECK(cost == Approx(expected_cost).epsilon(1e-4));
  CheckSteps(all, before, grad);
  // The sums grew: a second step is smaller.
  const auto after_first = Copy(all);
  REQUIRE(model.Update(pair, 1, &cost));
  CHECK(std::abs(all[1][0] - after_first[1][0]) < std::abs(after_first[1][0] - before[1][0]));
}

TEST_CASE("A subword skip-gram step moves each of the word's rows along the loss's gradient",
          "[train][subwords]") {
  const SubwordIndex index(Words(), 3, Scheme());
  const float eta = 0.025f;
  const AliasTable noise({0, 0, 1});  // every noise word is word 2
  SgnsModel model(3, kDim, 7, SgnsHyper{eta, 1}, &noise, &index);
  auto arrays = model.CheckpointArrays();  // word, context, n-grams
  REQUIRE(arrays.size() == 3);
  Randomize(arrays[1], 4, 0.5f);
  Randomize(arrays[2], 5, 0.5f);
  const size_t stride = RowStride(kDim);
  const TrainingPair pair{1, 0, 0, 1};
  const std::vector<float*> rows = WordRows(arrays[0]->data(), arrays[2]->data(), index, pair.row);
  float* positive = arrays[1]->data() + pair.col * stride;
  float* negative = arrays[1]->data() + 2 * stride;
  // L = -log sigma(h.c) - log sigma(-h.c_n).
  const auto loss = [&] {
    const std::vector<double> h = Mean(rows);
    double p = 0, n = 0;
    for (uint32_t b = 0; b < kDim; ++b) {
      p += h[b] * positive[b];
      n += h[b] * negative[b];
    }
    return std::log1p(std::exp(-p)) + std::log1p(std::exp(n));
  };
  std::vector<float*> all = rows;
  all.push_back(positive);
  all.push_back(negative);
  auto grad = NumericGradient(all, loss);
  const double word_rows = static_cast<double>(rows.size());
  for (size_t r = 0; r < all.size(); ++r) {
    for (double& g : grad[r]) g *= -eta * (r < rows.size() ? word_rows : 1.0);
  }
  const auto before = Copy(all);
  RangeTotals totals;
  const double expected_loss = loss();
  model.TrainRange(&pair, 1, RangeContext{0, 0, 9}, &totals);
  CHECK(totals.loss == Approx(expected_loss).epsilon(1e-4));
  CheckSteps(all, before, grad);
}
