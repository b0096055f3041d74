// A wall-time budget's run (TrainOptions::budget_seconds): its first
// decisions, the measurement of each dim it may choose on the block stream,
// and the replanning of its epochs as they run. The arithmetic of a plan is
// budget_plan.h's; this is the part that trains and reads files.
//
// Thread-safety: called from the training's one calling thread.
#ifndef STREAMGLOVE_TRAIN_BUDGET_RUN_H_
#define STREAMGLOVE_TRAIN_BUDGET_RUN_H_

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include <tbb/task_arena.h>

#include "store/store.h"
#include "streamglove/status.h"
#include "streamglove/train.h"
#include "train/block_stream.h"
#include "train/budget_plan.h"
#include "train/sgns_model.h"
#include "util/alias_table.h"
#include "vocab/subword_index.h"

namespace streamglove {

// A budget run's first decisions: a resumed run reads its plan (into *o);
// a new one chooses its objective and x_max and the dims to measure, and
// *plan_needed says the plan is still to be made.
Status StartBudget(const StoreConfig& store, const std::string& checkpoint,
                   const std::string& plan_path, TrainOptions* o, BudgetPlan* plan,
                   std::vector<uint32_t>* dims, bool* plan_needed, TrainStats* stats);

// A new budget run's plan: each dim of `dims` measured on the stream, then
// the objective's dim and epochs that fit what is left of the budget (into
// *o and *plan); *save_seconds: the chosen dim's checkpoint time.
Status MeasureAndPlanBudget(const BlockStreamInfo& blocks, const PairTransform& transform,
                            const NoiseTables& noise, const SubwordIndex* subwords, uint32_t cut,
                            const std::vector<uint32_t>& dims, const std::string& checkpoint,
                            std::chrono::steady_clock::time_point call_start,
                            tbb::task_arena* arena, int threads, TrainOptions* o, BudgetPlan* plan,
                            double* save_seconds, TrainStats* stats);

// A budget's plan against the epochs as they ran (`epochs_done`, each
// `per_epoch` seconds, `elapsed` so far): fewer epochs when the rest would
// overrun, more when it would leave the budget idle (at most `max_epochs`),
// the plan rewritten (the schedule decays over the new length).
// `start_seconds`: what starting the next epoch costs beyond its epoch time
// (a reader to open after what was the last epoch, none was read ahead).
Status Replan(uint32_t epochs_done, double per_epoch, double elapsed, double save_seconds,
              double start_seconds, double max_epochs, const std::string& plan_path,
              TrainOptions* o, BudgetPlan* plan, TrainStats* stats);

}  // namespace streamglove

#endif  // STREAMGLOVE_TRAIN_BUDGET_RUN_H_
