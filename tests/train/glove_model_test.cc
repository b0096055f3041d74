// GloVe: the update against a double-precision transcription of glove.c's,
// and the step schedule against its formula.
#include "train/glove_model.h"

#include <cmath>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

using namespace streamglove;

namespace {

// A row of parameters (dim components then the bias) and its squared
// gradient sums, in double.
struct RefRow {
  std::vector<double> v, g;
};

// glove.c's update for one pair (glove.c: glove_thread), the components'
// steps times `scale`. Returns the pair's cost.
double ReferenceUpdate(RefRow& w, RefRow& c, double log_x, double f, double eta, double clip,
                       double scale) {
  const size_t d = w.v.size() - 1;
  double diff = 0;
  for (size_t b = 0; b < d; ++b) diff += w.v[b] * c.v[b];
  diff += w.v[d] + c.v[d] - log_x;
  const double fdiff = f * diff;
  const double cost = 0.5 * fdiff * diff;
  std::vector<double> uw(d), uc(d);
  for (size_t b = 0; b < d; ++b) {
    const double t1 = std::fmin(std::fmax(fdiff * c.v[b], -clip), clip) * eta;
    const double t2 = std::fmin(std::fmax(fdiff * w.v[b], -clip), clip) * eta;
    uw[b] = scale * t1 / std::sqrt(w.g[b]);
    uc[b] = scale * t2 / std::sqrt(c.g[b]);
    w.g[b] += t1 * t1;
    c.g[b] += t2 * t2;
  }
  for (size_t b = 0; b < d; ++b) {
    w.v[b] -= uw[b];
    c.v[b] -= uc[b];
  }
  // The bias steps and sums use fdiff without eta, and are not scaled.
  w.v[d] -= fdiff / std::sqrt(w.g[d]);
  c.v[d] -= fdiff / std::sqrt(c.g[d]);
  w.g[d] += fdiff * fdiff;
  c.g[d] += fdiff * fdiff;
  return cost;
}

}  // namespace

TEST_CASE("GloVe updates equal a double-precision transcription of glove.c's at any step scale",
          "[train]") {
  constexpr uint32_t kVocab = 3, kDim = 7;
  const float eta = 0.05f;
  // The last clips most components (|f·diff·w| reaches ~0.1 here).
  for (const auto& [step_scale, clip] : {std::pair{1.0, 100.0f}, {2.0, 100.0f}, {0.5, 0.002f}}) {
    GloveModel model(kVocab, kDim, 3, GloveHyper{eta, clip, step_scale, 0});
    std::vector<RefRow> w(kVocab), c(kVocab);
    for (uint32_t i = 0; i < kVocab; ++i) {
      w[i].v.assign(model.word(i), model.word(i) + kDim + 1);
      c[i].v.assign(model.context(i), model.context(i) + kDim + 1);
      w[i].g.assign(kDim + 1, 1.0);  // glove.c starts the sums at 1
      c[i].g.assign(kDim + 1, 1.0);
      for (uint32_t b = 0; b <= kDim; ++b) CHECK(std::abs(w[i].v[b]) <= 0.5 / kDim);
    }
    // Pairs with f below and at 1, repeated rows (the sums grow), and a large
    // log count that drives the steps.
    const std::vector<TrainingPair> pairs = {{0, 1, 2.0f, 0.3f}, {1, 2, 0.5f, 1.0f},
                                             {0, 1, 2.0f, 0.3f}, {2, 0, 6.0f, 1.0f},
                                             {0, 0, 1.0f, 0.7f}, {2, 0, 6.0f, 1.0f}};
    RangeTotals totals;
    model.TrainRange(pairs.data(), pairs.size(), RangeContext(), &totals);
    double cost = 0;
    for (const TrainingPair& p : pairs) {
      cost += ReferenceUpdate(w[p.row], c[p.col], p.log_count, p.weight, eta, clip, step_scale);
    }
    INFO("step scale " << step_scale << " clip " << clip);
    CHECK(totals.updates == pairs.size());
    CHECK(totals.skipped == 0);
    CHECK(totals.loss == Approx(cost).epsilon(1e-5));
    for (uint32_t i = 0; i < kVocab; ++i) {
      for (uint32_t b = 0; b <= kDim; ++b) {
        CHECK(model.word(i)[b] == Approx(w[i].v[b]).margin(1e-5));
        CHECK(model.context(i)[b] == Approx(c[i].v[b]).margin(1e-5));
      }
    }
  }
}

TEST_CASE("GloVe step scale holds then falls linearly to zero over the decay fraction", "[train]") {
  const GloveHyper h{0.05f, 100, 2.0, 0.25};
  CHECK(h.StepScale(0) == 2.0f);
  CHECK(h.StepScale(0.75) == 2.0f);
  CHECK(h.StepScale(0.875) == Approx(1.0));
  CHECK(h.StepScale(0.95) == Approx(0.4));
  CHECK(h.StepScale(1) == 0.0f);
  const GloveHyper constant{0.05f, 100, 1.5, 0};
  for (double p : {0.0, 0.5, 1.0, 1.0 + 1e-12}) CHECK(constant.StepScale(p) == 1.5f);

  // A range late in the run trains at the scale of where it sits: a pair at
  // progress 0.95 moves the parameters as one step at scale 0.4.
  GloveModel late(2, 4, 8, h), reference(2, 4, 8, GloveHyper{0.05f, 100, 0.4, 0});
  const TrainingPair pair{0, 1, 3.0f, 1.0f};
  RangeContext context;
  context.progress_begin = context.progress_end = 0.95;
  RangeTotals a, b;
  late.TrainRange(&pair, 1, context, &a);
  reference.TrainRange(&pair, 1, RangeContext(), &b);
  for (uint32_t k = 0; k <= 4; ++k) {
    CHECK(late.word(0)[k] == Approx(reference.word(0)[k]).margin(1e-7));
    CHECK(late.context(1)[k] == Approx(reference.context(1)[k]).margin(1e-7));
  }
  CHECK(late.word(0)[0] != GloveModel(2, 4, 8, h).word(0)[0]);  // it moved
}

TEST_CASE("GloVe's transform gives log x and the weighting function min(1, (x / x_max)^alpha)",
          "[train]") {
  const PairTransform transform = GloveTransform(10, 0.75);
  for (double x : {1.0 / 15, 0.5, 1.0, 2.5, 9.999, 10.0, 10.001, 1234.5, 3.0e7}) {
    const TrainingPair p = transform.convert(PairRecord32{3, 4, static_cast<float>(x)});
    const double stored = static_cast<float>(x);  // what a block holds
    CHECK(p.row == 3);
    CHECK(p.col == 4);
    CHECK(p.log_count == Approx(std::log(stored)).epsilon(1e-7).margin(1e-7));
    CHECK(p.weight == Approx(std::min(1.0, std::pow(stored / 10, 0.75))).epsilon(1e-7));
  }
}
