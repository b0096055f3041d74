#include "train/budget_plan.h"

#include <cmath>

#include <catch2/catch.hpp>

#include "test_util.h"

using namespace streamglove;
using namespace streamglove::test;

namespace {

// Costs by brute force: setup, epochs, a checkpoint every `every` epochs and
// after the last, and the vectors file as one more.
double Cost(const BudgetCandidate& c, uint32_t epochs, uint32_t every) {
  uint32_t checkpoints = 0;
  for (uint32_t e = 1; e <= epochs; ++e) checkpoints += (e % every == 0 || e == epochs) ? 1 : 0;
  return c.setup_seconds + epochs * c.epoch_seconds + (checkpoints + 1) * c.checkpoint_seconds;
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
        const BudgetCandidate* want = nullptr;
        uint32_t want_epochs = 0;
        for (int tier = 0; tier < 3 && want == nullptr; ++tier) {
          for (const BudgetCandidate& c : candidates) {
            uint32_t fit = 0;
            for (uint32_t e = 1; e <= kBudgetMaxEpochs; ++e) {
              if (Cost(c, e, every) <= usable) fit = e;
            }
            const bool take = tier == 0 ? c.dim >= floor_dim && fit >= min_epochs
                              : tier == 1
                                  ? want == nullptr && c.dim >= floor_dim && 2 * fit >= min_epochs
                                  : want == nullptr;
            if (take) {
              want = &c;
              want_epochs = std::max<uint32_t>(fit, 1);
            }
          }
        }
        const BudgetPlan plan =
            PlanBudget(objective, subsampled, candidates, budget, budget, every);
        CHECK(plan.objective == objective);
        CHECK(plan.dim == want->dim);
        CHECK(plan.epochs == want_epochs);
        CHECK(plan.short_budget == (want_epochs < min_epochs));
        CHECK(plan.predicted_seconds == Approx(Cost(*want, plan.epochs, every)));
        if (!plan.short_budget) CHECK(plan.predicted_seconds <= usable);
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
  // dim 100 (0.2 + 9 x 11 + 10 x 0.4 = 103.2); 50 s usable, 4 of dim 100.
  const std::vector<BudgetCandidate> close = {{50, 0.1, 10, 0.2}, {100, 0.2, 11, 0.4}};
  const double budget_105 = 105 / (1 - kBudgetMargin);
  BudgetPlan plan = PlanBudget(Objective::kSgns, true, close, budget_105, budget_105, 1);
  CHECK(plan.dim == 100);
  CHECK(plan.epochs == 9);
  CHECK(plan.short_budget);
  plan = PlanBudget(Objective::kGlove, false, close, budget_105, budget_105, 1);
  CHECK(plan.dim == 50);  // GloVe has no floor
  CHECK(plan.epochs == 10);
  CHECK_FALSE(plan.short_budget);
  const double budget_50 = 50 / (1 - kBudgetMargin);
  plan = PlanBudget(Objective::kSgns, true, close, budget_50, budget_50, 1);
  CHECK(plan.dim == 50);
  CHECK(plan.epochs == 4);  // 0.1 + 4 x 10 + 5 x 0.2 = 41.1; 5 epochs: 51.3
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
  // Too short for one epoch of anything: the smallest dim, one epoch.
  BudgetPlan plan = PlanBudget(Objective::kGlove, false, candidates, 2, 2, 1);
  CHECK(plan.dim == 50);
  CHECK(plan.epochs == 1);
  CHECK(plan.short_budget);
  // Ample: the largest dim, capped.
  plan = PlanBudget(Objective::kGlove, false, candidates, 1e6, 1e6, 1);
  CHECK(plan.dim == 300);
  CHECK(plan.epochs == kBudgetMaxEpochs);
  // What was spent before the plan (the stream, the measurements) is not
  // planned again: 200 s left of 1000 s gives what 200 s would, less the
  // margin of the whole budget.
  plan = PlanBudget(Objective::kGlove, false, candidates, 1000, 200, 1);
  CHECK(plan.predicted_seconds <= 200 - kBudgetMargin * 1000);
  // One fixed dim: only its epochs are chosen.
  plan = PlanBudget(Objective::kGlove, false, {candidates[2]}, 100, 100, 1);
  CHECK(plan.dim == 200);
  CHECK(plan.epochs == 5);  // 0.4 + 5 x 15 + 6 x 0.8 = 80.2 <= 95; 6 epochs: 96
  CHECK(plan.short_budget);
}

TEST_CASE("A budget plan file reads back, and a damaged one is refused naming it",
          "[train][budget]") {
  TestDir dir("sg-plan-");
  const std::string path = dir.path() + "/v.txt.plan";
  BudgetPlan plan;
  plan.objective = Objective::kSgns;
  plan.dim = 200;
  plan.epochs = 17;
  plan.x_max = 10;
  plan.eta = 0.25 / 7;  // read back exactly: a resume hashes it
  REQUIRE(WriteBudgetPlan(path, plan).ok());
  BudgetPlan read;
  REQUIRE(ReadBudgetPlan(path, &read).ok());
  CHECK(read.objective == Objective::kSgns);
  CHECK(read.dim == 200);
  CHECK(read.epochs == 17);
  CHECK(read.x_max == 10);
  CHECK(read.eta == plan.eta);
  // A plan written before it held the rate reads with none (0).
  WriteFile(path, "objective\tsgns\ndim\t200\nepochs\t17\nx_max\t10\n");
  REQUIRE(ReadBudgetPlan(path, &read).ok());
  CHECK(read.eta == 0);
  for (const char* bad :
       {"objective\tsgns\ndim\t200\nepochs\t17\n",                     // a key missing
        "objective\tword2vec\ndim\t200\nepochs\t17\nx_max\t10\n",      // unknown objective
        "objective\tsgns\ndim\t0\nepochs\t17\nx_max\t10\n",            // dim 0
        "objective\tsgns\ndim\t2x0\nepochs\t17\nx_max\t10\n",          // not a number
        "objective\tsgns\ndim\t200\nepochs\t17\nx_max\t10\neta\t0\n",  // no rate
        "objective\tsgns\ndim\t200\nepochs\t17\nx_max\t10",            // cut short
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
  for (uint32_t planned : {1u, 5u, 24u}) {
    const uint32_t max_epochs = 2 * planned;
    for (uint32_t done = 1; done <= planned; ++done) {
      for (double per_epoch : {0.5, 3.0, 21.0}) {
        for (double left : {0.0, 1.0, 10.0, 60.0, 1000.0}) {
          for (double final_seconds : {0.0, 2.0}) {
            const uint32_t remaining = planned - done;
            const double overrun = remaining * per_epoch + final_seconds - left;
            const bool last_tenth = remaining <= std::max(2u, planned / 10);
            const bool clearly_off = std::abs(overrun) > kBudgetReplanShare * budget;
            // Shortens on a projected overrun: at once when it is over a
            // tenth of the budget, else only in the last tenth of the epochs.
            // Lengthens on idle time over a tenth of the budget, or in the
            // last tenth when a whole epoch more fits.
            const bool shortens = done < planned && overrun > 0 && (clearly_off || last_tenth);
            const double margin_epoch = per_epoch * (1 + kBudgetLengthenMargin);
            const bool lengthens = done < planned && overrun <= 0 &&
                                   (clearly_off || (last_tenth && -overrun >= margin_epoch));
            // Brute force: the most epochs E in [done, planned] (shortening)
            // or [planned, max_epochs] (lengthening) whose remaining (E -
            // done) epochs and the final writes fit `left`.
            uint32_t want = planned;
            if (shortens) {
              want = done;
              for (uint32_t e = done; e <= planned; ++e) {
                if ((e - done) * per_epoch + final_seconds <= left) want = e;
              }
            } else if (lengthens) {
              for (uint32_t e = planned; e <= max_epochs; ++e) {
                if ((e - done) * margin_epoch + final_seconds <= left) want = e;
              }
            }
            INFO("planned " << planned << " done " << done << " per epoch " << per_epoch << " left "
                            << left << " final " << final_seconds);
            CHECK(ReplanBudgetEpochs(planned, done, per_epoch, left, final_seconds, budget,
                                     max_epochs) == want);
          }
        }
      }
    }
  }
}

TEST_CASE("A budget replayed on epochs that run faster than measured: it is used, not left idle",
          "[train][budget]") {
  // 10 epochs planned at 9 s each in a 100 s budget (5 s spent first), run
  // at 6 s each: the plan grows, ending inside the budget within one epoch.
  const double budget = 100, final_seconds = 0.5;
  uint32_t planned = 10;
  double elapsed = 5;
  for (uint32_t k = 1; k <= planned; ++k) {
    elapsed += 6;
    if (k >= 2 && k < planned)
      planned = ReplanBudgetEpochs(planned, k, 6, budget - elapsed, final_seconds, budget, 20);
  }
  elapsed += final_seconds;
  CHECK(planned > 10);
  CHECK(elapsed <= budget);
  CHECK(elapsed > budget - 6);
}

TEST_CASE("A budget replayed on a run that overran: the plan ends it inside the budget",
          "[train][budget]") {
  // IMDB, seed 2 (docs/benchmarks.md): 24 epochs planned in 511.6 s, 21 s
  // spent before the first epoch, and these epoch times; it used 525.2 s.
  const double times[] = {24.763, 19.501, 23.031, 23.062, 23.201, 17.567, 21.731, 21.028,
                          22.135, 18.894, 16.460, 21.491, 23.061, 21.888, 20.979, 20.148,
                          22.792, 21.958, 21.299, 17.608, 18.255, 22.145, 20.726, 18.926};
  const double budget = 511.6;
  // Replayed as the trainer does: from the call's second epoch, rated by
  // the epochs after its first.
  const auto replay = [&](double slowdown_from_epoch_6) {
    uint32_t planned = 24;
    double elapsed = 21, later = 0;
    for (uint32_t k = 1; k <= planned; ++k) {
      const double t = times[k - 1] * (k > 5 ? slowdown_from_epoch_6 : 1.0);
      elapsed += t;
      if (k >= 2 && k < planned) {
        later += t;
        planned =
            ReplanBudgetEpochs(planned, k, later / (k - 1), budget - elapsed, 0.2, budget, 2 * 24);
      }
    }
    return std::make_pair(planned, elapsed);
  };
  const auto [epochs, seconds] = replay(1.0);
  CHECK(epochs == 23);
  CHECK(seconds <= budget);
  CHECK(seconds > budget - 25);  // one epoch, not more, given up
  // The machine twice as slow from epoch 6 on: cut early, still inside.
  const auto [slow_epochs, slow_seconds] = replay(2.0);
  CHECK(slow_epochs < 20);
  CHECK(slow_seconds <= budget);
}
