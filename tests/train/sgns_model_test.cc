// SGNS: the update against a reference computation, the noise and
// subsampling distributions against their formulas, and reproducibility.
#include "train/sgns_model.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "util/alias_table.h"

using namespace streamglove;

namespace {

// word2vec's step for one (word, target, label), in double, as a reference.
double ReferenceStep(std::vector<double>& w, std::vector<double>& c, std::vector<double>& step_w,
                     double label, double lr) {
  double dot = 0;
  for (size_t b = 0; b < w.size(); ++b) dot += w[b] * c[b];
  const double sigma = 1 / (1 + std::exp(-dot));
  const double g = (label - sigma) * lr;
  for (size_t b = 0; b < w.size(); ++b) {
    step_w[b] += g * c[b];
    c[b] += g * w[b];
  }
  return label > 0 ? -std::log(sigma) : -std::log(1 - sigma);
}

}  // namespace

TEST_CASE("SGNS updates equal a reference computation of word2vec's step", "[train][sgns]") {
  constexpr uint32_t kVocab = 4, kDim = 5, kNegatives = 2;
  // Only word 3 has noise weight: every negative is word 3.
  const AliasTable noise({0, 0, 0, 1});
  const float eta = 0.3f;
  SgnsModel model(kVocab, kDim, 9, SgnsHyper{eta, kNegatives}, &noise);
  std::vector<std::vector<double>> w(kVocab, std::vector<double>(kDim)),
      c(kVocab, std::vector<double>(kDim));
  for (uint32_t i = 0; i < kVocab; ++i) {
    for (uint32_t b = 0; b < kDim; ++b) {
      w[i][b] = model.word(i)[b];
      c[i][b] = model.context(i)[b];
      CHECK(c[i][b] == 0);                     // contexts start at zero, as word2vec's
      CHECK(std::abs(w[i][b]) <= 0.5 / kDim);  // words uniform in [-0.5, 0.5) / dim
    }
  }
  // One positive update per pair (the reader has expanded the counts, so the
  // weight is not read).
  const std::vector<TrainingPair> pairs = {
      {0, 1, 0, 1}, {1, 2, 0, 1}, {0, 2, 0, 1}, {0, 2, 0, 0}, {1, 0, 0, 7}};
  RangeTotals totals;
  RangeContext context;  // progress 0: the learning rate is eta throughout
  context.seed = 1;
  model.TrainRange(pairs.data(), pairs.size(), context, &totals);

  double loss = 0;
  uint64_t updates = 0;
  for (const TrainingPair& p : pairs) {
    std::vector<double> step(kDim, 0.0);
    loss += ReferenceStep(w[p.row], c[p.col], step, 1, eta);
    for (uint32_t k = 0; k < kNegatives; ++k) loss += ReferenceStep(w[p.row], c[3], step, 0, eta);
    for (uint32_t b = 0; b < kDim; ++b) w[p.row][b] += step[b];
    ++updates;
  }
  CHECK(totals.updates == updates);
  CHECK(totals.loss == Approx(loss).epsilon(1e-5));
  for (uint32_t i = 0; i < kVocab; ++i) {
    for (uint32_t b = 0; b < kDim; ++b) {
      CHECK(model.word(i)[b] == Approx(w[i][b]).margin(1e-6));
      CHECK(model.context(i)[b] == Approx(c[i][b]).margin(1e-6));
    }
  }
}

TEST_CASE(
    "SGNS learning rate falls linearly over the run and a noise word equal to the context is "
    "skipped",
    "[train][sgns]") {
  // All noise mass on word 1, the positive's own context: every negative is
  // skipped, so one update is a single logistic step at the current rate.
  const AliasTable noise({0, 1});
  const float eta = 0.2f;
  for (double progress : {0.0, 0.25, 0.9, 0.99995}) {
    SgnsModel model(2, 3, 4, SgnsHyper{eta, 3}, &noise);
    std::vector<double> w(model.word(0), model.word(0) + 3), c(3, 0.0), step(3, 0.0);
    const TrainingPair pair{0, 1, 0, 1};
    RangeContext context;
    context.progress_begin = context.progress_end = progress;
    RangeTotals totals;
    model.TrainRange(&pair, 1, context, &totals);
    const double lr = eta * std::max(1e-4, 1 - progress);  // word2vec's schedule
    const double loss = ReferenceStep(w, c, step, 1, lr);
    INFO("progress " << progress);
    CHECK(totals.loss == Approx(loss).epsilon(1e-6));
    for (int b = 0; b < 3; ++b) CHECK(model.context(1)[b] == Approx(c[b]).margin(1e-9));
  }
}

TEST_CASE("Noise words follow unigram counts raised to the power", "[train][sgns]") {
  std::vector<VocabEntry> vocab;
  for (uint64_t count : {90000, 30000, 5000, 700, 60, 5, 1}) vocab.push_back({"w", count});
  const uint32_t cut = 6;  // the last word is beyond the cut: never drawn
  const AliasTable table(NoiseWeights(vocab, cut, 0.75));
  REQUIRE(table.size() == cut);
  double sum = 0;
  for (uint32_t i = 0; i < cut; ++i) sum += std::pow(static_cast<double>(vocab[i].count), 0.75);
  std::mt19937_64 rng(5);
  constexpr int kDraws = 2000000;
  std::vector<int> seen(cut, 0);
  for (int i = 0; i < kDraws; ++i) ++seen[table.Sample(rng())];
  for (uint32_t i = 0; i < cut; ++i) {
    const double p = std::pow(static_cast<double>(vocab[i].count), 0.75) / sum;
    const double sd = std::sqrt(kDraws * p * (1 - p));
    INFO("word " << i << " p " << p << " seen " << seen[i]);
    CHECK(std::abs(seen[i] - kDraws * p) < 5 * sd + 1);
  }
}

TEST_CASE("Subsampling keeps words with word2vec's probability", "[train][sgns]") {
  std::vector<VocabEntry> vocab;
  for (uint64_t count : {5000000, 800000, 20000, 900, 3}) vocab.push_back({"w", count});
  const uint64_t tokens = 10000000;
  const double t = 1e-4;
  const std::vector<float> keep = SubsampleKeepProbabilities(vocab, 5, tokens, t);
  for (uint32_t i = 0; i < 5; ++i) {
    // word2vec.c: ran = (sqrt(cn / (sample * train_words)) + 1) * (sample * train_words) / cn
    const double cn = static_cast<double>(vocab[i].count), st = t * static_cast<double>(tokens);
    const double ran = (std::sqrt(cn / st) + 1) * st / cn;
    CHECK(keep[i] == Approx(std::min(1.0, ran)).epsilon(1e-6));
  }
  CHECK(keep[0] < 0.05f);  // the most frequent word is mostly dropped
  CHECK(keep[4] == 1.0f);  // rare words are always kept
  for (float k : SubsampleKeepProbabilities(vocab, 5, tokens, 0)) CHECK(k == 1.0f);

  // A stored count becomes x p(row) p(col) expected positive updates.
  const PairTransform transform = SgnsTransform(keep);
  const TrainingPair p = transform.convert(PairRecord32{0, 3, 12.5f});
  CHECK(transform.unit_updates);  // spread by the reader
  CHECK(p.row == 0);
  CHECK(p.col == 3);
  CHECK(p.weight == Approx(12.5 * keep[0] * keep[3]));
}
