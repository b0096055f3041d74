#include "train/budget_run.h"

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <memory>

#include <fmt/format.h>

#include "train/bucket_trainer.h"
#include "train/run_parts.h"
#include "train/train_tuning.h"
#include "util/duration.h"
#include "util/file.h"

namespace streamglove {

namespace {

using Clock = std::chrono::steady_clock;

// Measures what PlanBudget() needs of each dim: a throwaway model of it is
// made, trains the stream's first parts on the run's threads for
// `seconds_each` (waits for the reader included), at the learning rate of the
// start of a run of `min_epochs`, and writes a checkpoint to `scratch`
// (removed after). The part read meanwhile says how long the
// reader takes per part beside the trainers; the slower of the two is the
// rate. *rates says what was measured, for people.
Status MeasureBudgetCandidates(const BlockStreamInfo& blocks, const PairTransform& transform,
                               const TrainOptions& o, uint32_t vocab, const NoiseTables& noise,
                               const SubwordIndex* subwords, tbb::task_arena* arena, int threads,
                               const std::vector<uint32_t>& dims, uint32_t min_epochs,
                               double seconds_each, const std::string& scratch,
                               std::vector<BudgetCandidate>* candidates, std::string* rates) {
  std::unique_ptr<PartReader> reader = OpenEpoch(&blocks, o.seed, 0, &transform);
  BlockPart part;
  size_t next_bucket =
      0;  // in part: a bucket is prepared (converted) once, so each dim trains its own
  // Stored records a part stands for (SGNS's hold unit updates).
  const auto part_records = [&] {
    return static_cast<double>(part.pairs.size()) / part.updates_per_record;
  };
  // The next part (the stream read again from the start when a short one
  // runs out).
  const auto next_part = [&]() -> Status {
    for (bool done = true; done;) {
      SG_RETURN_IF_ERROR(reader->Next(&part, &done));
      if (done) {
        if (blocks.pairs == 0) return Status::InvalidArgument("the block stream holds no pairs");
        reader = OpenEpoch(&blocks, o.seed, 0, &transform);
      }
    }
    next_bucket = 0;
    return Status::OK();
  };
  SG_RETURN_IF_ERROR(next_part());
  // Trains `model` on the buckets left for `seconds`, reading parts as
  // needed; the stored records trained.
  const auto train_for = [&](EmbeddingModel* model, double seconds, double* records) -> Status {
    const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                             std::chrono::duration<double>(seconds));
    ThreadBucketTrainer trainer(arena, threads, model, &transform);
    while (Clock::now() < deadline) {
      if (next_bucket >= part.buckets()) SG_RETURN_IF_ERROR(next_part());
      PartPosition at;  // the start of a run of min_epochs
      at.seed = o.seed;
      at.records_per_pair = 1 / part.updates_per_record;
      at.run_records = static_cast<double>(blocks.pairs) * min_epochs;
      uint64_t trained = 0;
      SG_RETURN_IF_ERROR(trainer.Train(&part, &next_bucket, at, deadline, &trained));
      *records += at.records_per_pair * static_cast<double>(trained);
    }
    return Status::OK();
  };
  for (uint32_t dim : dims) {
    auto start = Clock::now();
    std::unique_ptr<EmbeddingModel> model;
    SG_RETURN_IF_ERROR(MakeModel(o, vocab, dim, noise, subwords, &model));
    BudgetCandidate c;
    c.dim = dim;
    c.setup_seconds = SecondsSince(start);
    double records = 0;
    // The threads' first buckets run slower (measured: half the rate at
    // 0.25 s), so the first dim is warmed up untimed.
    if (dim == dims.front()) SG_RETURN_IF_ERROR(train_for(model.get(), seconds_each / 2, &records));
    SG_RETURN_IF_ERROR(next_part());  // read beside the warm-up or the last dim: a fresh start
    records = 0;
    start = Clock::now();
    SG_RETURN_IF_ERROR(train_for(model.get(), seconds_each, &records));
    const double train_rate = records / std::max(SecondsSince(start), 1e-9);
    // The part being read now was read beside this dim's training.
    SG_RETURN_IF_ERROR(next_part());
    const double read_rate = part_records() / std::max(part.read_seconds, 1e-9);
    const double rate = std::min(train_rate, read_rate);
    c.epoch_seconds = static_cast<double>(blocks.pairs) / std::max(rate, 1.0);
    start = Clock::now();
    SG_RETURN_IF_ERROR(model->Save(scratch, 0, CheckpointStamp()));
    c.checkpoint_seconds = SecondsSince(start);
    std::error_code ignored;
    std::filesystem::remove(scratch, ignored);
    *rates += fmt::format("{}dim {}: {:.2f} M pairs/s{}", rates->empty() ? "" : ", ", dim,
                          rate / 1e6, read_rate < train_rate ? " (the reader's)" : "");
    candidates->push_back(c);
  }
  return Status::OK();
}

}  // namespace

Status StartBudget(const StoreConfig& store, const std::string& checkpoint,
                   const std::string& plan_path, TrainOptions* o, BudgetPlan* plan,
                   std::vector<uint32_t>* dims, bool* plan_needed, TrainStats* stats) {
  if (o->resume && PathExists(checkpoint)) {
    SG_RETURN_IF_ERROR(ReadBudgetPlan(plan_path, plan));
    o->objective = plan->objective;
    o->dim = plan->dim;
    o->epochs = plan->epochs;
    o->x_max = plan->x_max;
    // A plan written before it held the rate trained the default of the
    // time, which did not depend on the epochs: a full run's.
    if (plan->eta == 0)
      plan->eta = DefaultEta(plan->objective, store.subsample > 0, kBudgetMaxEpochs);
    if (o->eta == 0) o->eta = plan->eta;
    if (o->subwords.buckets == 0) o->subwords.buckets = plan->subword_buckets;
    *dims = {o->dim};
    stats->budget_resumed = true;
    return Status::OK();
  }
  if (o->budget_choices.objective)
    o->objective = BudgetObjective(store.window, store.subsample > 0);
  if (o->budget_choices.x_max && o->objective == Objective::kGlove) o->x_max = BudgetPlan().x_max;
  if (o->budget_choices.dim) dims->assign(std::begin(kBudgetDims), std::end(kBudgetDims));
  *plan_needed = true;
  return Status::OK();
}

Status MeasureAndPlanBudget(const BlockStreamInfo& blocks, const PairTransform& transform,
                            const NoiseTables& noise, const SubwordIndex* subwords, uint32_t cut,
                            const std::vector<uint32_t>& dims, const std::string& checkpoint,
                            Clock::time_point call_start, tbb::task_arena* arena, int threads,
                            TrainOptions* o, BudgetPlan* plan, double* save_seconds,
                            TrainStats* stats) {
  // Each dim measured for 0.5% of the budget (0.5-3 s): a few percent of
  // it in all, long enough for a steady rate.
  const double seconds_each = std::clamp(o->budget_seconds * 0.005, 0.5, 3.0);
  std::vector<BudgetCandidate> candidates;
  const bool store_subsampled = stats->store_subsample > 0;
  const uint32_t min_epochs = BudgetMinEpochs(o->objective, store_subsampled);
  TrainOptions measured = *o;
  if (measured.eta == 0) measured.eta = DefaultEta(o->objective, store_subsampled, min_epochs);
  SG_RETURN_IF_ERROR(MeasureBudgetCandidates(
      blocks, transform, measured, cut, noise, subwords, arena, threads, dims, min_epochs,
      seconds_each, checkpoint + ".measure", &candidates, &stats->budget_rates));
  *plan = PlanBudget(o->objective, store_subsampled, candidates, o->budget_seconds,
                     o->budget_seconds - SecondsSince(call_start), o->checkpoint_every);
  plan->x_max = o->x_max;
  for (const BudgetCandidate& c : candidates) {
    if (c.dim == plan->dim) *save_seconds = c.checkpoint_seconds;
  }
  o->dim = plan->dim;
  o->epochs = plan->epochs;
  stats->budget_short = plan->short_budget;
  stats->budget_min_epochs = BudgetMinEpochs(o->objective, store_subsampled);
  stats->budget_predicted_seconds = SecondsSince(call_start) + plan->predicted_seconds;
  return Status::OK();
}

Status Replan(uint32_t epochs_done, double per_epoch, double elapsed, double save_seconds,
              double start_seconds, double max_epochs, const std::string& plan_path,
              TrainOptions* o, BudgetPlan* plan, TrainStats* stats) {
  const double planned = PlannedEpochs(*plan);
  const double affordable = ReplanBudgetEpochs(
      planned, epochs_done, per_epoch, o->budget_seconds - elapsed - save_seconds,
      2 * save_seconds + start_seconds, o->budget_seconds, max_epochs);
  if (affordable == planned) return Status::OK();
  SetPlannedEpochs(affordable, plan);
  o->epochs = stats->epochs_planned = plan->epochs;
  stats->last_epoch_share = plan->last_epoch_share;
  stats->budget_replanned = true;
  return WriteBudgetPlan(plan_path, *plan);
}

}  // namespace streamglove
