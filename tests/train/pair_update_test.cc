// train/pair_update.h, the arithmetic the CUDA kernels run, against the CPU
// models: on one lane (SerialLanes) and on 32 threads acting as a warp's
// lanes (each holding every 32nd component, summing through a barrier), a
// range trained pair after pair as the kernels' sequential mode does equals
// GloveModel::TrainRange / SgnsModel::TrainRange to float rounding.
#include "train/pair_update.h"

#include <algorithm>
#include <barrier>
#include <cmath>
#include <cstring>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "train/glove_model.h"
#include "train/sgns_model.h"
#include "util/alias_table.h"
#include "util/split_mix.h"

using namespace streamglove;

namespace {

constexpr uint32_t kWarp = 32;

// kWarp threads as the lanes of one group: Sum() is an all-reduce through a
// barrier, adding in lane order (the same bits on every lane).
class ThreadLanes {
 public:
  static constexpr uint32_t kCount = kWarp;
  struct Shared {
    std::barrier<> barrier{kWarp};
    float values[kWarp];
  };
  ThreadLanes(Shared* shared, uint32_t lane) : shared_(shared), lane_(lane) {}
  uint32_t lane() const { return lane_; }
  float Sum(float x) const {
    shared_->values[lane_] = x;
    shared_->barrier.arrive_and_wait();
    float sum = 0;
    for (float v : shared_->values) sum += v;
    shared_->barrier.arrive_and_wait();  // before anyone writes values again
    return sum;
  }

 private:
  Shared* shared_;
  uint32_t lane_;
};

// Runs lane_body(lanes) on kWarp threads, one per lane.
template <class Body>
void OnThreadLanes(const Body& lane_body) {
  ThreadLanes::Shared shared;
  std::vector<std::thread> threads;
  for (uint32_t lane = 0; lane < kWarp; ++lane) {
    threads.emplace_back([&, lane] { lane_body(ThreadLanes(&shared, lane)); });
  }
  for (std::thread& t : threads) t.join();
}

std::vector<TrainingPair> RandomPairs(size_t n, uint32_t vocab, uint64_t seed) {
  SplitMix64 random(seed);
  std::vector<TrainingPair> pairs(n);
  const PairTransform glove = GloveTransform(10, 0.75);
  for (TrainingPair& p : pairs) {
    const PairRecord32 r{static_cast<uint32_t>(random.Below(vocab)),
                         static_cast<uint32_t>(random.Below(vocab)),
                         1.0f + static_cast<float>(random.Below(40)) / 4};
    p = glove.convert(r);
  }
  return pairs;
}

// Every array of `a` equals `b`'s within `tolerance`, relatively.
void CheckArraysClose(EmbeddingModel& a, EmbeddingModel& b, double tolerance) {
  const auto as = a.CheckpointArrays(), bs = b.CheckpointArrays();
  REQUIRE(as.size() == bs.size());
  double worst = 0;
  for (size_t k = 0; k < as.size(); ++k) {
    for (size_t i = 0; i < as[k]->size(); ++i) {
      const double x = (*as[k])[i], y = (*bs[k])[i];
      worst = std::max(worst, std::fabs(x - y) / std::max(1e-3, std::fabs(y)));
    }
  }
  INFO("largest relative difference " << worst);
  CHECK(worst < tolerance);
}

void CopyArrays(EmbeddingModel& from, EmbeddingModel* to) {
  const auto src = from.CheckpointArrays(), dst = to->CheckpointArrays();
  for (size_t k = 0; k < src.size(); ++k)
    std::memcpy(dst[k]->data(), src[k]->data(), src[k]->size() * sizeof(float));
}

// GloVe's range as the kernels train it: pair after pair on `lanes`.
template <uint32_t kPerLane, class Lanes>
double GloveRangeOnLanes(const Lanes& lanes, GloveModel* model, const GloveHyper& h,
                         const std::vector<TrainingPair>& pairs, const RangeContext& range,
                         uint64_t* skipped) {
  const auto arrays = model->CheckpointArrays();
  const size_t stride = RowStride(model->dim());
  double cost = 0;
  for (size_t i = 0; i < pairs.size(); ++i) {
    const float scale = GloveStepScale(h.step_scale, h.decay_fraction,
                                       RangeProgress(range.progress_begin, range.progress_end,
                                                     pairs.size(), i - i % kGloveScaleEvery));
    const size_t w = pairs[i].row * stride, c = pairs[i].col * stride;
    const GloveRows rows{arrays[0]->data() + w, arrays[1]->data() + c, arrays[2]->data() + w,
                         arrays[3]->data() + c};
    if (!GloveUpdateOnLanes<Lanes, kPerLane>(lanes, model->dim(), rows, pairs[i].log_count,
                                             pairs[i].weight, h.eta, h.grad_clip, scale, &cost)) {
      ++*skipped;
    }
  }
  return cost;
}

// SGNS's range as the kernels train it, drawing each pair's noise words
// from the range's stream by position.
template <uint32_t kPerLane, class Lanes>
double SgnsRangeOnLanes(const Lanes& lanes, SgnsModel* model, const SgnsHyper& h,
                        const AliasTable& noise, const std::vector<TrainingPair>& pairs,
                        const RangeContext& range) {
  const auto arrays = model->CheckpointArrays();
  const size_t stride = RowStride(model->dim());
  double loss = 0;
  for (size_t i = 0; i < pairs.size(); ++i) {
    const float lr = SgnsLearningRate(
        h.eta, RangeProgress(range.progress_begin, range.progress_end, pairs.size(), i));
    const auto noise_word = [&](uint32_t k) {
      return AliasTable::Pick(SplitMix64::Draw(range.seed, i * h.negatives + k),
                              static_cast<uint32_t>(noise.size()), noise.thresholds().data(),
                              noise.aliases().data());
    };
    loss += SgnsUpdateOnLanes<Lanes, kPerLane>(
        lanes, model->dim(), arrays[0]->data() + pairs[i].row * stride, arrays[1]->data(), stride,
        pairs[i].col, h.negatives, noise_word, lr);
  }
  return loss;
}

}  // namespace

TEST_CASE("SplitMix64::Draw(seed, n) is the generator's n-th number", "[train][device]") {
  SplitMix64 random(77);
  for (uint64_t n = 0; n < 1000; ++n) REQUIRE(SplitMix64::Draw(77, n) == random.Next());
}

TEST_CASE("The kernels' GloVe arithmetic equals GloveModel on one lane and on a warp's 32",
          "[train][device]") {
  constexpr uint32_t kVocab = 60;
  // 2,500 pairs cross the step scale's recomputation twice; the range ends
  // inside the decay, so the scale changes between them.
  const std::vector<TrainingPair> pairs = RandomPairs(2500, kVocab, 5);
  const GloveHyper h{0.05f, 100.0f, 2.0, 0.5};
  const RangeContext range{0.4, 0.9, 0};
  for (uint32_t dim : {7u, 40u, 100u}) {
    INFO("dim " << dim);
    GloveModel cpu(kVocab, dim, 11, h), one_lane(kVocab, dim, 11, h), warp(kVocab, dim, 11, h);
    RangeTotals totals;
    cpu.TrainRange(pairs.data(), pairs.size(), range, &totals);

    uint64_t skipped = 0;
    const double cost = GloveRangeOnLanes<128>(SerialLanes(), &one_lane, h, pairs, range, &skipped);
    CHECK(cost == Approx(totals.loss).epsilon(1e-5));
    CHECK(skipped == totals.skipped);
    CheckArraysClose(one_lane, cpu, 1e-4);

    std::vector<double> lane_costs(kWarp);
    std::vector<uint64_t> lane_skipped(kWarp, 0);
    OnThreadLanes([&](const ThreadLanes& lanes) {
      lane_costs[lanes.lane()] =
          GloveRangeOnLanes<4>(lanes, &warp, h, pairs, range, &lane_skipped[lanes.lane()]);
    });
    // The cost is the same on every lane (it is made of Sum()s).
    for (double c : lane_costs) CHECK(c == lane_costs[0]);
    CHECK(lane_costs[0] == Approx(totals.loss).epsilon(1e-5));
    CheckArraysClose(warp, cpu, 1e-4);
  }
}

TEST_CASE("The kernels' GloVe arithmetic skips a non-finite pair as GloveModel does",
          "[train][device]") {
  std::vector<TrainingPair> pairs = RandomPairs(50, 10, 9);
  pairs[20].log_count = INFINITY;
  pairs[30].weight = NAN;
  const GloveHyper h{0.05f, 100.0f, 1.0, 0};
  GloveModel cpu(10, 8, 3, h), lanes(10, 8, 3, h);
  RangeTotals totals;
  cpu.TrainRange(pairs.data(), pairs.size(), RangeContext{0, 1, 0}, &totals);
  uint64_t skipped = 0;
  GloveRangeOnLanes<8>(SerialLanes(), &lanes, h, pairs, RangeContext{0, 1, 0}, &skipped);
  CHECK(totals.skipped == 2);
  CHECK(skipped == 2);
  CheckArraysClose(lanes, cpu, 1e-5);
}

TEST_CASE("The kernels' skip-gram arithmetic equals SgnsModel on one lane and on a warp's 32",
          "[train][device]") {
  constexpr uint32_t kVocab = 80;
  std::vector<double> weights(kVocab);
  for (uint32_t i = 0; i < kVocab; ++i) weights[i] = std::pow(1000.0 / (i + 1), 0.75);
  const AliasTable noise(weights);
  const std::vector<TrainingPair> pairs = RandomPairs(600, kVocab, 21);
  const SgnsHyper h{0.05f, 5};
  const RangeContext range{0.1, 0.6, 12345};
  for (uint32_t dim : {10u, 40u, 100u}) {
    INFO("dim " << dim);
    SgnsModel cpu(kVocab, dim, 4, h, &noise), one_lane(kVocab, dim, 4, h, &noise),
        warp(kVocab, dim, 4, h, &noise);
    // Context rows start at zero; a trained start exercises every branch of
    // the logistic (large |w.c| included).
    RangeTotals warm;
    cpu.TrainRange(pairs.data(), pairs.size(), RangeContext{0, 0.1, 1}, &warm);
    CopyArrays(cpu, &one_lane);
    CopyArrays(cpu, &warp);

    RangeTotals totals;
    cpu.TrainRange(pairs.data(), pairs.size(), range, &totals);
    const double loss = SgnsRangeOnLanes<128>(SerialLanes(), &one_lane, h, noise, pairs, range);
    CHECK(loss == Approx(totals.loss).epsilon(1e-5));
    CheckArraysClose(one_lane, cpu, 1e-4);

    std::vector<double> lane_loss(kWarp);
    OnThreadLanes([&](const ThreadLanes& lanes) {
      lane_loss[lanes.lane()] = SgnsRangeOnLanes<4>(lanes, &warp, h, noise, pairs, range);
    });
    for (double l : lane_loss) CHECK(l == lane_loss[0]);
    CHECK(lane_loss[0] == Approx(totals.loss).epsilon(1e-5));
    CheckArraysClose(warp, cpu, 1e-4);
  }
}
