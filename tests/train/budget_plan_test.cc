#include "train/budget_plan.h"

#include <cmath>

#include <catch2/catch.hpp>

#include "test_util.h"

using namespace streamglove;
using namespace streamglove::test;

namespace {

// Costs by brute force, for `hundredths` of an epoch: setup, the epochs (a
// partial last one by its share), a checkpoint every `every` epochs and
// after the last started, and the vectors file as one more.
double Cost(const BudgetCandidate& c, uint32_t hundredths, uint32_t every) {
  const uint32_t started = (hundredths + 99) / 100;
  uint32_t checkpoints = 0;
  for (uint32_t e = 1; e <= started; ++e) checkpoints += (e % every == 0 || e == started) ? 1 : 0;
  return c.setup_seconds + hundredths / 100.0 * c.epoch_seconds +
         (checkpoints + 1) * c.checkpoint_seconds;
}

// A plan's length as SetPlannedEpochs states it: a part under a tenth of an
// epoch dropped, but at least a tenth of one.
double Snapped(uint32_t hundredths) {
  if (hundredths % 100 < 10) hundredths = hundredths < 100 ? 10 : hundredths - hundredths % 100;
  return hundredths / 100.0;
}

std::vector<BudgetCandidate> Candidates() {
  // Epochs of 5, 8, 15 and 22 s; setups and checkpoints growing with the dim.
  return {{50, 0.1, 5, 0.2}, {100, 0.2, 8, 0.4}, {200, 0.4, 15, 0.8}, {300, 0.6, 22, 1.2}};
}

}  // namespace

TEST_CASE("A budget trains the largest dim that gets enough epochs, as many as fit",
          "[train][budget]") {
  const std::vector<BudgetCandidate> candidates = Candidates();
  for (const auto& [objective, subsampled] :
       {std::pair{Objective::kGlove, false}, std::pair{Objective::kSgns, false},
        std::pair{Objective::kSgns, true}}) {
    const uint32_t min_epochs = BudgetMinEpochs(objective, subsampled);
    for (double budget : {30.0, 60.0, 100.0, 170.0, 300.0, 600.0, 1000.0, 5000.0}) {
      for (uint32_t every : {1u, 3u}) {
        INFO(ObjectiveName(objective)
             << (subsampled ? " subsampled" : "") << " budget " << budget << " every " << every);
        const double usable = budget * (1 - kBudgetMargin);
        // The reference: every (dim, epochs) that fits, by brute force; the
        // largest dim from the floor up with the minimum, else the smallest
        // from the floor up with half of it, else the smallest.
        const uint32_t floor_dim = objective == Objective::kSgns ? 100 : 0;
        // Its length: the whole epochs that fit, and of one more the most
        // hundredths that fit.
        const BudgetCandidate* want = nullptr;
        uint32_t want_epochs = 0;
        double want_length = 0;
        for (int tier = 0; tier < 3 && want == nullptr; ++tier) {
          for (const BudgetCandidate& c : candidates) {
            uint32_t fit = 0;
            for (uint32_t e = 1; e <= kBudgetMaxEpochs; ++e) {
              if (Cost(c, 100 * e, every) <= usable) fit = e;
            }
            uint32_t length = 100 * fit;
            for (uint32_t h = length + 1; fit < kBudgetMaxEpochs && h < 100 * (fit + 1); ++h) {
              if (Cost(c, h, every) <= usable + 1e-9) length = h;
            }
            const bool take = tier == 0 ? c.dim >= floor_dim && fit >= min_epochs
                              : tier == 1
                                  ? want == nullptr && c.dim >= floor_dim && 2 * fit >= min_epochs
                                  : want == nullptr;
            if (take) {
              want = &c;
              want_epochs = fit;
              want_length = Snapped(length);
            }
          }
        }
        const BudgetPlan plan =
            PlanBudget(objective, subsampled, candidates, budget, budget, every);
        CHECK(plan.objective == objective);
        CHECK(plan.dim == want->dim);
        CHECK(PlannedEpochs(plan) == Approx(want_length));
        CHECK(plan.short_budget == (want_epochs < min_epochs));
        CHECK(plan.predicted_seconds ==
              Approx(Cost(*want, static_cast<uint32_t>(std::lround(want_length * 100)), every)));
        if (want_length >= 0.1) CHECK(plan.predicted_seconds <= usable + 1e-9);
        // Used, not left idle: within a tenth of an epoch of the usable time.
        if (PlannedEpochs(plan) < kBudgetMaxEpochs && want_length >= 0.1) {
          CHECK(plan.predicted_seconds >
                usable - 0.1 * want->epoch_seconds - want->checkpoint_seconds - 1e-9);
        }
      }
    }
  }
  // The thresholds differ: in 200 s GloVe trains dim 200 (11 epochs of 15
  // s), skip-gram dim 100 (20 of 8 s; dim 200's 11 are too few), skip-gram
  // on a store subsampled before windowing dim 200 again.
  CHECK(PlanBudget(Objective::kGlove, false, candidates, 200, 200, 1).dim == 200);
  CHECK(PlanBudget(Objective::kSgns, false, candidates, 200, 200, 1).dim == 100);
  CHECK(PlanBudget(Objective::kSgns, true, candidates, 200, 200, 1).dim == 200);
  // Skip-gram's dim 50 only when dim 100 gets under half the minimum: with
  // epochs of 10 and 11 s, 105 s usable fits 10 epochs of dim 50 and 9 of
  // dim 100 (0.2 + 9 x 11 + 10 x 0.4 = 103.2), and 0.12 of a tenth (its
  // checkpoint 0.4 s: 103.2 + 0.4 + 0.12 x 11 = 104.92); 50 s usable, 4 of
  // dim 100.
  const std::vector<BudgetCandidate> close = {{50, 0.1, 10, 0.2}, {100, 0.2, 11, 0.4}};
  const double budget_105 = 105 / (1 - kBudgetMargin);
  BudgetPlan plan = PlanBudget(Objective::kSgns, true, close, budget_105, budget_105, 1);
  CHECK(plan.dim == 100);
  CHECK(plan.epochs == 10);
  CHECK(plan.last_epoch_share == Approx(0.12));
  CHECK(plan.short_budget);
  plan = PlanBudget(Objective::kGlove, false, close, budget_105, budget_105, 1);
  CHECK(plan.dim == 50);                        // GloVe has no floor
  CHECK(PlannedEpochs(plan) == Approx(10.25));  // 102.3 + 0.2 + 0.25 x 10 = 105
  CHECK_FALSE(plan.short_budget);
  const double budget_50 = 50 / (1 - kBudgetMargin);
  plan = PlanBudget(Objective::kSgns, true, close, budget_50, budget_50, 1);
  CHECK(plan.dim == 50);
  CHECK(PlannedEpochs(plan) == Approx(4.87));  // 0.1 + 4 x 10 + 5 x 0.2 = 41.1; + 0.2 + 8.7
  // A dim given below the floor is planned as the only one it is.
  plan = PlanBudget(Objective::kSgns, true, {close[0]}, budget_105, budget_105, 1);
  CHECK(plan.dim == 50);
  CHECK_FALSE(plan.short_budget);
  // Skip-gram wherever the counts are word2vec's: a window of up to 10, or
  // any window subsampled before windowing.
  CHECK(BudgetObjective(5, false) == Objective::kSgns);
  CHECK(BudgetObjective(10, false) == Objective::kSgns);
  CHECK(BudgetObjective(15, false) == Objective::kGlove);
  CHECK(BudgetObjective(15, true) == Objective::kSgns);
}

TEST_CASE("A budget plan's edges: short budgets, the epoch cap, time already spent",
          "[train][budget]") {
  const std::vector<BudgetCandidate> candidates = Candidates();
  // Too short for one epoch of anything: the smallest dim, part of an
  // epoch (1.9 s usable: 0.1 + 2 x 0.2 + 0.28 x 5 = 1.9).
  BudgetPlan plan = PlanBudget(Objective::kGlove, false, candidates, 2, 2, 1);
  CHECK(plan.dim == 50);
  CHECK(plan.epochs == 1);
  CHECK(plan.last_epoch_share == Approx(0.28));
  CHECK(plan.short_budget);
  // Too short for even a tenth: a tenth.
  plan = PlanBudget(Objective::kGlove, false, candidates, 0.5, 0.5, 1);
  CHECK(PlannedEpochs(plan) == Approx(0.1));
  // Ample: the largest dim, capped.
  plan = PlanBudget(Objective::kGlove, false, candidates, 1e6, 1e6, 1);
  CHECK(plan.dim == 300);
  CHECK(plan.epochs == kBudgetMaxEpochs);
  CHECK(plan.last_epoch_share == 1);
  // What was spent before the plan (the stream, the measurements) is not
  // planned again: 200 s left of 1000 s gives what 200 s would, less the
  // margin of the whole budget.
  plan = PlanBudget(Objective::kGlove, false, candidates, 1000, 200, 1);
  CHECK(plan.predicted_seconds <= 200 - kBudgetMargin * 1000);
  // One fixed dim: only its epochs are chosen.
  plan = PlanBudget(Objective::kGlove, false, {candidates[2]}, 100, 100, 1);
  CHECK(plan.dim == 200);
  // 0.4 + 5 x 15 + 6 x 0.8 = 80.2 <= 95; 6 epochs: 96, so 14/15 of the sixth.
  CHECK(PlannedEpochs(plan) == Approx(5.93));
  CHECK(plan.short_budget);
  // A plan's length in hundredths, a part under a tenth dropped.
  for (const auto& [length, epochs, share] : {std::tuple{2.6, 3u, 0.6},
                                              {3.0, 3u, 1.0},
                                              {3.05, 3u, 1.0},
                                              {3.999, 4u, 0.99},
                                              {0.02, 1u, 0.1},
                                              {0.0, 1u, 0.1},
                                              {7.1, 8u, 0.1}}) {
    SetPlannedEpochs(length, &plan);
    INFO(length);
    CHECK(plan.epochs == epochs);
    CHECK(plan.last_epoch_share == Approx(share));
  }
}

TEST_CASE("A budget plan file reads back, and a damaged one is refused naming it",
          "[train][budget]") {
  TestDir dir("sg-plan-");
  const std::string path = dir.path() + "/v.txt.plan";
  BudgetPlan plan;
  plan.objective = Objective::kSgns;
  plan.dim = 200;
  plan.epochs = 17;
  plan.last_epoch_share = 0.37;
  plan.x_max = 10;
  plan.eta = 0.25 / 7;  // read back exactly: a resume hashes it
  REQUIRE(WriteBudgetPlan(path, plan).ok());
  BudgetPlan read;
  REQUIRE(ReadBudgetPlan(path, &read).ok());
  CHECK(read.objective == Objective::kSgns);
  CHECK(read.dim == 200);
  CHECK(read.epochs == 17);
  CHECK(read.last_epoch_share == 0.37);
  CHECK(read.x_max == 10);
  CHECK(read.eta == plan.eta);
  // A plan written before it held the rate, or a partial epoch, reads with
  // none (0) and whole epochs.
  WriteFile(path, "objective\tsgns\ndim\t200\nepochs\t17\nx_max\t10\n");
  REQUIRE(ReadBudgetPlan(path, &read).ok());
  CHECK(read.eta == 0);
  CHECK(read.last_epoch_share == 1);
  for (const char* bad :
       {"objective\tsgns\ndim\t200\nepochs\t17\n",                     // a key missing
        "objective\tword2vec\ndim\t200\nepochs\t17\nx_max\t10\n",      // unknown objective
        "objective\tsgns\ndim\t0\nepochs\t17\nx_max\t10\n",            // dim 0
        "objective\tsgns\ndim\t2x0\nepochs\t17\nx_max\t10\n",          // not a number
        "objective\tsgns\ndim\t200\nepochs\t17\nx_max\t10\neta\t0\n",  // no rate
        "objective\tsgns\ndim\t200\nepochs\t17\nlast_epoch_share\t0\nx_max\t10\n",
        "objective\tsgns\ndim\t200\nepochs\t17\nlast_epoch_share\t1.5\nx_max\t10\n",
        "objective\tsgns\ndim\t200\nepochs\t17\nx_max\t10",  // cut short
        "objective sgns\n"}) {
    INFO(bad);
    WriteFile(path, bad);
    const Status s = ReadBudgetPlan(path, &read);
    CHECK_FALSE(s.ok());
    CHECK(s.message().find(path) != std::string::npos);
  }
  CHECK_FALSE(ReadBudgetPlan(dir.path() + "/missing.plan", &read).ok());
}

TEST_CASE("A running budget plan changes to the epochs that fit, neither overrun nor idle",
          "[train][budget]") {
  const double budget = 100;
  for (double planned : {1.0, 2.6, 5.0, 24.35}) {
    const double max_epochs = 2 * planned;
    for (uint32_t done = 1; done <= planned; ++done) {
      for (double per_epoch : {0.5, 3.0, 21.0}) {
        for (double left : {0.0, 1.0, 10.0, 60.0, 1000.0}) {
          for (double final_seconds : {0.0, 2.0}) {
            const double remaining = planned - done;
            const double overrun = remaining * per_epoch + final_seconds - left;
            const bool last_tenth = remaining <= std::max(2.0, planned / 10);
            const bool clearly_off = std::abs(overrun) > kBudgetReplanShare * budget;
            // Brute force over hundredths: the longest length in [done,
            // planned] (shortening) or [planned, max_epochs] (lengthening)
            // whose rest after `done` and the final writes fit `left`.
            const auto longest = [&](double per, double from, double to) {
              uint32_t best = 100 * done;
              for (auto h = static_cast<uint32_t>(std::lround(from * 100));
                   h <= std::lround(to * 100); ++h) {
                if ((h / 100.0 - done) * per + final_seconds <= left + 1e-9) best = h;
              }
              return Snapped(best);
            };
            const double margin_epoch = per_epoch * (1 + kBudgetLengthenMargin);
            const double longer = longest(margin_epoch, planned, max_epochs);
            // Shortens on a projected overrun: at once when it is over a
            // tenth of the budget, else only in the last tenth of the epochs.
            // Lengthens on idle time over a tenth of the budget, or in the
            // last tenth when a tenth of an epoch more fits.
            const bool shortens = overrun > 0 && (clearly_off || last_tenth);
            const bool lengthens =
                overrun <= 0 && (clearly_off || (last_tenth && longer - planned >= 0.1 - 1e-9));
            double want = planned;
            if (shortens) want = std::min(longest(per_epoch, done, planned), planned);
            if (lengthens) want = std::max(longer, planned);
            INFO("planned " << planned << " done " << done << " per epoch " << per_epoch << " left "
                            << left << " final " << final_seconds);
            CHECK(ReplanBudgetEpochs(planned, done, per_epoch, left, final_seconds, budget,
                                     max_epochs) == Approx(want));
          }
        }
      }
    }
  }
}

namespace {

// A budget replayed as the trainer runs it: epochs taking `seconds(k)` (the
// k-th, from 1; a partial last one its share of that, refitted to the time
// left and ending at the latest when only `final_seconds` are left), the
// plan checked from the call's second epoch (or after the first when only
// the last is left, and after the last when it was trained whole), rated by
// the epochs after its first. Returns the length planned at the end and the
// seconds used.
template <typename EpochSeconds>
std::pair<double, double> Replay(double planned, double budget, double spent_before,
                                 double final_seconds, EpochSeconds seconds) {
  BudgetPlan plan;
  SetPlannedEpochs(planned, &plan);
  const double max_epochs = 2 * planned;
  double elapsed = spent_before, later = 0;
  for (uint32_t k = 1; k <= plan.epochs; ++k) {
    const double t = seconds(k);
    bool last_cut = false;
    if (k == plan.epochs) {
      // Refitted as it runs: its share shrinks to what the time left holds,
      // or grows (with the margin) up to the whole epoch.
      const double room = std::max(0.0, budget - final_seconds - elapsed);
      double share = plan.last_epoch_share;
      if (t * share > room) {
        share = room / t;
      } else {
        share = std::max(share, std::min(1.0, room / (t * (1 + kBudgetLengthenMargin))));
      }
      last_cut = share < 1;
      if (!last_cut) SetPlannedEpochs(plan.epochs, &plan);
      elapsed += t * share;
    } else {
      elapsed += t;
    }
    if (!last_cut && (k >= 2 || k + 1 >= plan.epochs)) {
      if (k >= 2) later += t;
      const double per_epoch = k >= 2 ? later / (k - 1) : t;
      SetPlannedEpochs(ReplanBudgetEpochs(PlannedEpochs(plan), k, per_epoch, budget - elapsed,
                                          final_seconds, budget, max_epochs),
                       &plan);
    }
  }
  return {PlannedEpochs(plan), elapsed + final_seconds};
}

}  // namespace

TEST_CASE("A budget replayed on epochs that run faster than measured: it is used, not left idle",
          "[train][budget]") {
  // 10 epochs planned at 9 s each in a 100 s budget (5 s spent first), run
  // at 6 s each: the plan grows, ending inside the budget, over 90% used.
  const auto [epochs, seconds] = Replay(10, 100, 5, 0.5, [](uint32_t) { return 6.0; });
  CHECK(epochs > 10);
  CHECK(seconds <= 100);
  CHECK(seconds >= 90);
}

TEST_CASE("A budget replayed on a run that overran: the plan ends it inside the budget",
          "[train][budget]") {
  // IMDB, seed 2 (docs/benchmarks.md): 24 epochs planned in 511.6 s, 21 s
  // spent before the first epoch, and these epoch times; it used 525.2 s.
  const double times[] = {24.763, 19.501, 23.031, 23.062, 23.201, 17.567, 21.731, 21.028,
                          22.135, 18.894, 16.460, 21.491, 23.061, 21.888, 20.979, 20.148,
                          22.792, 21.958, 21.299, 17.608, 18.255, 22.145, 20.726, 18.926};
  const double budget = 511.6;
  const auto replay = [&](double slowdown_from_epoch_6) {
    return Replay(24, budget, 21, 0.2, [&](uint32_t k) {
      return times[std::min<uint32_t>(k, 24) - 1] * (k > 5 ? slowdown_from_epoch_6 : 1.0);
    });
  };
  const auto [epochs, seconds] = replay(1.0);
  CHECK(epochs < 24);
  CHECK(epochs > 23);  // the last epoch in part, not given up
  CHECK(seconds <= budget);
  CHECK(seconds >= 0.95 * budget);
  // The machine twice as slow from epoch 6 on: cut early, still inside.
  const auto [slow_epochs, slow_seconds] = replay(2.0);
  CHECK(slow_epochs < 20);
  CHECK(slow_seconds <= budget);
  CHECK(slow_seconds >= 0.9 * budget);
}

TEST_CASE("A short budget replayed: its partial last epoch keeps it between 90% and 100%",
          "[train][budget]") {
  // IMDB words at 85 s (docs/benchmarks.md): a plan of 3 epochs at dim 50
  // whose epochs ran a fifth slower than measured was cut to 2 whole ones
  // and used 78%. Replayed from the plan: 2 s of measuring, epochs measured
  // at 24 s (0.3 s setup, 0.5 s checkpoints), run at 28.8 s.
  const double budget = 85;
  const BudgetCandidate measured{50, 0.3, 24, 0.5};
  const BudgetPlan plan = PlanBudget(Objective::kSgns, true, {measured}, budget, budget - 2, 1);
  CHECK(plan.last_epoch_share < 1);
  for (double slowdown : {0.6, 0.8, 1.0, 1.2}) {  // 0.6: the plan grows past its last epoch
    INFO("slowdown " << slowdown);
    const auto [epochs, seconds] = Replay(PlannedEpochs(plan), budget, 2 + 0.3, 1.0,
                                          [&](uint32_t) { return 24 * slowdown + 0.5; });
    CHECK(seconds <= budget);
    CHECK(seconds >= 0.9 * budget);
  }
}

TEST_CASE("A last epoch's share is refitted to the time left at its own rate", "[train][budget]") {
  // 30% of the epoch in 6 s (5% a second), planned to end at 60%.
  // 10 s left reaches 80%: it grows, with the lengthening margin.
  CHECK(RefitLastEpochShare(0.6, 0.3, 6, 10) ==
        Approx(0.3 + 0.05 * 10 / (1 + kBudgetLengthenMargin)));
  // 4 s left reaches 50%: it shrinks to that, without a margin.
  CHECK(RefitLastEpochShare(0.6, 0.3, 6, 4) == Approx(0.5));
  // Growth that the margin takes back leaves the plan's share.
  CHECK(RefitLastEpochShare(0.6, 0.3, 6, 6.3) == Approx(0.6));
  // Never past the whole epoch, nor below what is trained (the deadline
  // passed: nothing more).
  CHECK(RefitLastEpochShare(0.6, 0.3, 6, 1000) == 1);
  CHECK(RefitLastEpochShare(0.6, 0.3, 6, -2) == Approx(0.3));
  CHECK(RefitLastEpochShare(1.0, 0.9, 6, 0) == Approx(0.9));
  // How far the time left reaches, past the epoch's end too.
  CHECK(ReachableShare(0.3, 6, 20) == Approx(0.3 + 0.05 * 20 / (1 + kBudgetLengthenMargin)));
  CHECK(ReachableShare(0.3, 6, 20) > 1);
  CHECK(ReachableShare(0.3, 6, -1) == Approx(0.3));
}
