// Training in a wall-time budget (`train --budget`): what to train, chosen
// from the store and from rates measured on its own pairs.
//
// The trainer measures, for each dim it may choose, how fast a throwaway
// model trains the store's pairs on the run's threads and how long one of its
// checkpoints takes to write; PlanBudget() then picks the largest dim that
// gets enough epochs in the time left, and as many epochs as fit. The
// thresholds come from equal-time comparisons (docs/benchmarks.md, "The
// measurements behind skip-gram's defaults"). The plan is written beside
// the vectors (OUT.plan), so a resumed run finishes the same plan instead of
// measuring again.
//
// Thread-safety: pure functions and plain values.
#ifndef STREAMGLOVE_TRAIN_BUDGET_PLAN_H_
#define STREAMGLOVE_TRAIN_BUDGET_PLAN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "streamglove/status.h"
#include "streamglove/train.h"

namespace streamglove {

// The dims a budget chooses among, smallest first.
inline constexpr uint32_t kBudgetDims[] = {50, 100, 200, 300};
// A dim is chosen only if it trains at least this many epochs (GloVe 10;
// skip-gram 20, or 10 on a store of word2vec's windows, whose epoch holds
// about twice the updates): at equal time a larger dim loses to a smaller
// one when it gets fewer, and a lower minimum did not pay. Measurements:
// docs/benchmarks.md, "Presets: the best vectors in Stanford's wall time"
// (GloVe) and "The measurements behind skip-gram's defaults".
uint32_t BudgetMinEpochs(Objective objective, bool store_subsampled);
// Skip-gram trains a dim below this one only when no dim at or above it
// gets half of BudgetMinEpochs: dim 50 trains barely faster than dim 100
// (the reader and memory bound a small dim) and lost to it on every measure
// with more epochs (docs/benchmarks.md, "Short budgets: the dim floor and
// the short-run rate"). GloVe has no such floor (not measured). 0: none.
uint32_t BudgetFloorDim(Objective objective);
// ...and trains at most this many (time left over is not spent).
inline constexpr uint32_t kBudgetMaxEpochs = 50;
// Share of the budget kept back for the rate's variation along the run.
inline constexpr double kBudgetMargin = 0.05;
// Share of the budget kept after the last epoch's deadline besides the last
// checkpoint and the vectors file (as long as a checkpoint each): their
// times vary, and the process exits.
inline constexpr double kBudgetEndMargin = 0.01;

// The objective a budget trains when none is given: skip-gram on stores
// counted with a window of up to 10 (word2vec's scale) or subsampled before
// windowing (word2vec's counts), GloVe on the others (its paper's window
// 10-15; x_max 10, as the presets).
Objective BudgetObjective(uint32_t store_window, bool store_subsampled);

// A dim the budget could train, with its measured costs.
struct BudgetCandidate {
  uint32_t dim = 0;
  double setup_seconds = 0;       // the model's allocation and initialisation
  double epoch_seconds = 0;       // the stream's records at the measured rate
  double checkpoint_seconds = 0;  // one checkpoint written
};

struct BudgetPlan {
  Objective objective = Objective::kGlove;
  uint32_t dim = 0;
  uint32_t epochs = 0;
  double x_max = 10;
  // The initial learning rate trained. 0 in plans written before the rate
  // followed the epochs (a full run's DefaultEta then).
  double eta = 0;
  // A subword model's buckets, chosen from the memory and the largest dim
  // measured, which a resumed run no longer measures (0: words as atoms, or
  // a plan of before subwords).
  uint32_t subword_buckets = 0;
  double predicted_seconds = 0;  // from the plan on: setup, epochs, checkpoints, vectors
  bool short_budget = false;     // no dim got BudgetMinEpochs: see PlanBudget
  // The share of the last epoch's records it trains, in hundredths: a plan
  // ends in part of an epoch rather than leave the budget idle (1: whole).
  double last_epoch_share = 1;
};

// A partial last epoch is planned only from this share of an epoch up: a
// shorter one is within the margins' noise.
inline constexpr double kBudgetLeastShare = 0.1;
// The plan's length in epochs, the partial last one counted by its share
// (2.6: two whole epochs and 60% of a third), and back: `epochs` is rounded
// down to hundredths, and a part under kBudgetLeastShare is dropped (but a
// plan keeps at least that share of one epoch).
double PlannedEpochs(const BudgetPlan& plan);
void SetPlannedEpochs(double epochs, BudgetPlan* plan);

// Picks the largest candidate at or above BudgetFloorDim() that trains at
// least BudgetMinEpochs() whole epochs within `seconds_left` (less
// kBudgetMargin of `budget_seconds`), with as many epochs as fit up to
// kBudgetMaxEpochs, the time left after the whole ones trained as a partial
// last epoch. If none does (a short budget): the smallest candidate at or
// above the floor that gets half the minimum (rounded up); failing that, the
// smallest candidate with what fits (at least kBudgetLeastShare of an
// epoch). The floor is lowered to the largest candidate's dim when it is
// above it. A checkpoint is counted every `checkpoint_every` epochs and
// after the last, and the vectors file as one more checkpoint. `candidates`
// must not be empty, smallest dim first.
BudgetPlan PlanBudget(Objective objective, bool store_subsampled,
                      const std::vector<BudgetCandidate>& candidates, double budget_seconds,
                      double seconds_left, uint32_t checkpoint_every);

// The epochs a running plan keeps (PlannedEpochs: a partial last one
// counted by its share), checked after every epoch: with
// `epochs_done` of `planned` trained, epochs taking `epoch_seconds` each as
// measured so far (their checkpoints included), `seconds_left` of the
// `budget_seconds` and `final_seconds` kept for the last checkpoint and the
// vectors file. A budget is to be used, neither overrun nor left idle: a
// machine slower than when the rates were measured ends the run with fewer
// epochs, a faster one (or a plan cut on early, noisy epochs) gets more, up
// to `max_epochs`. Epoch times vary (16.5-24.8 s within one run on the 2-core
// machine), so a plan changes early only when the projection is clearly off
// (an overrun, or idle time, of over kBudgetReplanShare of the budget) and
// otherwise in its last tenth of epochs (at least the last two), where the
// rate is known: it shortens there on any projected overrun and lengthens
// when kBudgetLeastShare of an epoch more fits, with a margin
// (kBudgetLengthenMargin). The new length fills the time left, ending in a
// partial epoch. Replayed on an IMDB run that overran (budget_plan_test),
// cutting at the first projected overrun would have left 21 of 24 epochs and
// 50 s unused. Never fewer than epochs_done (the run then ends). Called
// after the last epoch too when it was trained whole (epochs_done ==
// planned): time left then lengthens the plan.
inline constexpr double kBudgetReplanShare = 0.10;
// Epoch times vary by about a tenth within a run (16.5-24.8 s above; 24.3-37.7
// s on wiki100M's skip-gram at fastText's wall time): a lengthened plan counts
// each epoch that much longer.
inline constexpr double kBudgetLengthenMargin = 0.10;
double ReplanBudgetEpochs(double planned, uint32_t epochs_done, double epoch_seconds,
                          double seconds_left, double final_seconds, double budget_seconds,
                          double max_epochs);

// The last epoch's share (of its records) refitted as it runs, after each
// part: `trained` of the epoch done in `epoch_seconds`, `seconds_left` before
// its deadline. The plan's rates were measured before the run and a replan
// between epochs has no epoch after the last to rate, so the last epoch is
// fitted at its own rate: the schedule then decays to where it ends. The
// share grows from `planned` only with kBudgetLengthenMargin's margin, as a
// replan does, and stays within [trained, 1].
double RefitLastEpochShare(double planned, double trained, double epoch_seconds,
                           double seconds_left);
// The share of an epoch that `trained` of it done in `epoch_seconds` reaches
// in `seconds_left` more, with kBudgetLengthenMargin's margin (past 1: the
// time reaches into another epoch).
double ReachableShare(double trained, double epoch_seconds, double seconds_left);

// The plan as "key<TAB>value" lines, and back: a file that does not parse
// as a plan is an error naming it.
Status WriteBudgetPlan(const std::string& path, const BudgetPlan& plan);
Status ReadBudgetPlan(const std::string& path, BudgetPlan* plan);

}  // namespace streamglove

#endif  // STREAMGLOVE_TRAIN_BUDGET_PLAN_H_
