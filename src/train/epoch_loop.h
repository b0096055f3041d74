// The epochs of one training call: each epoch's blocks read in their order
// and trained (by threads or a device), a checkpoint after every
// checkpoint_every epochs and the last, a line of the loss log after each,
// and a budget's plan checked as the epochs run (budget_run.h).
//
// Thread-safety: called from the training's one calling thread; the epoch's
// reader and trainer run their own threads.
#ifndef STREAMGLOVE_TRAIN_EPOCH_LOOP_H_
#define STREAMGLOVE_TRAIN_EPOCH_LOOP_H_

#include <chrono>
#include <cstdint>
#include <string>

#include "streamglove/status.h"
#include "streamglove/train.h"
#include "train/block_stream.h"
#include "train/bucket_trainer.h"
#include "train/budget_plan.h"
#include "train/checkpoint.h"
#include "train/embedding_model.h"
#include "util/file.h"

namespace streamglove {

// What the epochs of one call work with.
struct EpochRun {
  const BlockStreamInfo* blocks;
  const PairTransform* transform;
  BucketTrainer* trainer;
  EmbeddingModel* model;
  int threads;
  std::string checkpoint, plan_path;
  CheckpointStamp stamp;
  std::chrono::steady_clock::time_point call_start;
  bool budget;
  double save_seconds;  // one checkpoint's write, as last measured (0: not yet)
};

// The loss log (OUT.log.tsv) of a run whose checkpoint holds `epochs_kept`
// epochs: their lines are kept, and those logged after the checkpoint (lost
// to a crash) are trained and logged again. A lost log is written anew.
Status OpenLossLog(const std::string& path, uint32_t epochs_kept, WritableFile* log);

// Trains the epochs from `epoch` (the checkpoint's, or 0) to the plan's
// end, a checkpoint after every o->checkpoint_every and the last, a loss line
// and o->on_epoch after each. A budget's plan is checked after each epoch
// (Replan: o->epochs and *plan may change), its last epoch ends at the
// budget's end less the final writes, and what that epoch trained is
// reported in *stats.
Status TrainEpochs(EpochRun run, uint32_t epoch, TrainOptions* o, BudgetPlan* plan,
                   WritableFile* log, TrainStats* stats);

}  // namespace streamglove

#endif  // STREAMGLOVE_TRAIN_EPOCH_LOOP_H_
