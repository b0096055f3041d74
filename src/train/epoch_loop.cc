#include "train/epoch_loop.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include <fmt/format.h>
#include <tbb/task_arena.h>

#include "streamglove/interrupt.h"
#include "train/budget_run.h"
#include "train/run_parts.h"
#include "train/train_tuning.h"
#include "util/duration.h"
#include "util/progress.h"

namespace streamglove {

namespace {

using Clock = std::chrono::steady_clock;

// A held epoch's positions per call to TrainHeld: 16 M pairs, a few
// milliseconds of a GPU's updates, so an interrupt is seen at once.
constexpr uint64_t kHeldPartPairs = uint64_t{1} << 24;

// The epochs of one run, trained in turn by Train().
class EpochLoop {
 public:
  // With a device, the readers scatter blocks on `threads` threads of their
  // own: one thread scatters ~50 M pairs/s (docs/gpu.md), and the host's
  // threads only prepare buckets for the device. The CPU's trainers keep
  // their threads busy: their reader scatters on one.
  // `last_epoch_share`: of the last epoch's records trained (a budget's
  // plan may end in part of one; it may change between epochs).
  EpochLoop(const BlockStreamInfo* blocks, const TrainOptions* o, const double* last_epoch_share,
            const PairTransform* transform, BucketTrainer* trainer, int threads,
            uint32_t first_epoch)
      : blocks_(blocks),
        o_(o),
        last_epoch_share_(last_epoch_share),
        transform_(transform),
        trainer_(trainer),
        scatter_arena_(o->device == TrainDevice::kCuda ? std::make_unique<tbb::task_arena>(threads)
                                                       : nullptr),
        first_epoch_(first_epoch),
        meter_("train", o->progress),
        start_(Clock::now()) {
    if (first_epoch < o->epochs) {
      reader_ = OpenEpoch(blocks, o->seed, first_epoch, transform, scatter_arena_.get());
    }
  }

  // A budget's last epoch ends at `deadline` if it has not ended before
  // (a bucket taken after it is left untrained), and its share is refitted
  // after each part to the time left (RefitLastEpochShare): however the
  // epochs' rates varied, the run neither overruns nor leaves the budget
  // idle. Default: none.
  void set_last_epoch_deadline(Clock::time_point deadline) { last_epoch_deadline_ = deadline; }
  // The share of the last epoch trained (or planned, before it ends).
  double last_epoch_share() const { return last_share_; }
  // What starting the next epoch costs beyond its training: nothing when
  // its reader is open (read ahead), else reading a part (as the last took).
  double next_epoch_start_seconds() const { return reader_ ? 0 : part_.read_seconds; }

  // Trains epoch `epoch` (from 0) over every block (the last epoch over its
  // share of them, in its shuffled order, and up to its deadline), opening
  // the next epoch's reader while its last part trains; *e gets its loss and
  // updates (not its time: the caller's checkpoint belongs in it), and the
  // model's arrays every update. An interrupt ends it with the status to
  // return.
  Status Train(uint32_t epoch, const std::string& checkpoint, EpochStats* e) {
    if (Held(epoch)) return TrainHeldEpoch(epoch, checkpoint, e);
    // A plan lengthened after what was its last epoch has no reader open yet.
    if (!reader_) reader_ = OpenEpoch(blocks_, o_->seed, epoch, transform_, scatter_arena_.get());
    std::unique_ptr<PartReader> next_reader;
    uint64_t epoch_pairs = 0;  // stored records trained so far this epoch
    const bool last = epoch + 1 == o_->epochs;
    const Clock::time_point deadline = last ? last_epoch_deadline_ : Clock::time_point::max();
    last_share_ = *last_epoch_share_;
    time_for_more_ = false;
    const auto epoch_start = Clock::now();
    bool ended = false;  // the share trained, or the deadline passed
    for (size_t block = 0; !ended && Clock::now() < deadline; ++block) {
      bool done = false;
      SG_RETURN_IF_ERROR(reader_->Next(&part_, &done));
      if (done) break;
      // The last epoch's successor is read ahead too when the time left
      // may lengthen the plan by a part of one (the replan after it).
      if (reader_->exhausted() && !Held(epoch + 1) &&
          (epoch + 1 < o_->epochs || (last && time_for_more_))) {
        next_reader = OpenEpoch(blocks_, o_->seed, epoch + 1, transform_, scatter_arena_.get());
      }
      const size_t n = part_.pairs.size();
      const double wanted = last_share_ * static_cast<double>(blocks_->pairs);
      if (last && last_share_ < 1 && part_.records > 0 &&
          static_cast<double>(epoch_pairs + part_.records) >= wanted) {
        KeepBuckets((wanted - static_cast<double>(epoch_pairs)) / part_.records, &part_);
        ended = true;
      }
      PartPosition at;
      at.seed = o_->seed;
      at.epoch = epoch;
      at.block = block;
      at.before = static_cast<double>(blocks_->pairs) * epoch + static_cast<double>(epoch_pairs);
      at.records_per_pair = n > 0 ? static_cast<double>(part_.records) / static_cast<double>(n) : 0;
      at.run_records = static_cast<double>(blocks_->pairs) * RunEpochs();
      size_t first_bucket = 0;
      uint64_t trained = 0;
      SG_RETURN_IF_ERROR(trainer_->Train(&part_, &first_bucket, at, deadline, &trained));
      // The part's records, or the share of them trained.
      const uint64_t records =
          trained >= n ? part_.records
                       : static_cast<uint64_t>(static_cast<double>(part_.records) * trained /
                                               static_cast<double>(std::max<size_t>(n, 1)));
      epoch_pairs += records;
      pairs_trained_ += records;
      if (deadline != Clock::time_point::max() && !ended) {
        const double trained_share =
            static_cast<double>(epoch_pairs) / std::max<uint64_t>(blocks_->pairs, 1);
        const double seconds = SecondsSince(epoch_start);
        const double left = std::chrono::duration<double>(deadline - Clock::now()).count();
        last_share_ = RefitLastEpochShare(last_share_, trained_share, seconds, left);
        time_for_more_ = ReachableShare(trained_share, seconds, left) >= 1 + kBudgetLeastShare;
      }
      SG_RETURN_IF_ERROR(StopIfInterrupted(epoch, checkpoint));
      ShowProgress(epoch);
    }
    if (last)
      last_share_ = static_cast<double>(epoch_pairs) / std::max<uint64_t>(blocks_->pairs, 1);
    reader_.reset();  // before the next opens: its buffers, if any, are freed first
    reader_ = next_reader ? std::move(next_reader)
              : (epoch + 1 < o_->epochs && !Held(epoch + 1))
                  ? OpenEpoch(blocks_, o_->seed, epoch + 1, transform_, scatter_arena_.get())
                  : nullptr;
    return FinishEpoch(epoch, epoch_pairs, e);
  }

  // Frees the last part's memory (the vectors file's rows are built in its
  // place) and any reader left open, read ahead for an epoch not trained.
  void Release() {
    reader_.reset();
    part_ = BlockPart();
  }

 private:
  // Leaves `share` of the part's buckets to train, its first (rounded up):
  // each bucket is a uniform sample of the part, so they are a uniform
  // sample of its pairs. The part is then the epoch's last.
  static void KeepBuckets(double share, BlockPart* part) {
    const size_t buckets = part->buckets();
    if (buckets == 0) return;
    const auto keep = static_cast<size_t>(std::ceil(std::clamp(share, 0.0, 1.0) * buckets));
    part->bucket_begin.resize(std::clamp<size_t>(keep, 1, buckets) + 1);
  }

  // Whether epoch `epoch` is trained from the pairs the trainer holds: every
  // epoch after the call's first, with a trainer that holds them.
  bool Held(uint32_t epoch) const { return trainer_->HoldsEpochs() && epoch > first_epoch_; }

  // An epoch of held pairs, handed over in parts of kHeldPartPairs
  // positions (between which the progress line and an interrupt are
  // seen). A device needs a planned length: the whole epoch is trained.
  Status TrainHeldEpoch(uint32_t epoch, const std::string& checkpoint, EpochStats* e) {
    part_ = BlockPart();  // no part is read again
    last_share_ = 1;
    const uint64_t n = blocks_->pairs;
    PartPosition at;
    at.seed = o_->seed;
    at.epoch = epoch;
    at.before = static_cast<double>(n) * epoch;
    at.records_per_pair = 1;
    at.run_records = static_cast<double>(n) * RunEpochs();
    for (uint64_t begin = 0; begin < n; begin += kHeldPartPairs) {
      const uint64_t end = std::min(n, begin + kHeldPartPairs);
      SG_RETURN_IF_ERROR(trainer_->TrainHeld(at, begin, end));
      pairs_trained_ += end - begin;
      SG_RETURN_IF_ERROR(StopIfInterrupted(epoch, checkpoint));
      ShowProgress(epoch);
    }
    return FinishEpoch(epoch, n, e);
  }

  Status StopIfInterrupted(uint32_t epoch, const std::string& checkpoint) {
    if (!Interrupted()) return Status::OK();
    meter_.Finish();
    return InterruptedStatus(fmt::format(
        "stopped in epoch {}; rerun with --resume to continue from {}", epoch + 1, checkpoint));
  }

  void ShowProgress(uint32_t epoch) {
    const double run_pairs =
        std::max(1.0, static_cast<double>(blocks_->pairs) * (RunEpochs() - first_epoch_));
    meter_.UpdateFraction(
        fmt::format("epoch {}/{}", epoch + 1, o_->epochs), pairs_trained_ / run_pairs,
        fmt::format("{:.2f} M pairs/s", pairs_trained_ / SecondsSince(start_) / 1e6));
  }

  // Waits for the epoch's updates: *e gets its pairs, loss and updates.
  Status FinishEpoch(uint32_t epoch, uint64_t epoch_pairs, EpochStats* e) {
    e->epoch = epoch + 1;
    e->pairs = epoch_pairs;
    RangeTotals totals;
    SG_RETURN_IF_ERROR(trainer_->WaitAll(&totals));
    e->loss = totals.loss / static_cast<double>(std::max<uint64_t>(totals.updates, 1));
    e->updates = totals.updates;
    e->skipped = totals.skipped;
    meter_.Finish();
    return Status::OK();
  }

  // The run's length in epochs, its partial last one by its share.
  double RunEpochs() const { return o_->epochs - 1 + last_share_; }

  const BlockStreamInfo* const blocks_;
  const TrainOptions* const o_;
  const double* const last_epoch_share_;
  const PairTransform* const transform_;
  BucketTrainer* const trainer_;
  // Before the readers, which scatter on it.
  const std::unique_ptr<tbb::task_arena> scatter_arena_;
  const uint32_t first_epoch_;
  ProgressMeter meter_;
  const Clock::time_point start_;
  std::unique_ptr<PartReader> reader_;  // the next epoch's
  BlockPart part_;
  uint64_t pairs_trained_ = 0;
  Clock::time_point last_epoch_deadline_ = Clock::time_point::max();
  double last_share_ = 1;  // the plan's, refitted in the last epoch
  // In the last epoch: the time left reaches past its end (ReachableShare).
  bool time_for_more_ = false;
};

Status AppendLossLine(const EpochStats& e, WritableFile* log) {
  SG_RETURN_IF_ERROR(
      log->Append(fmt::format("{}\t{:.6f}\t{:.3f}\t{:.0f}\t{}\t{}\n", e.epoch, e.loss, e.seconds,
                              e.pairs / e.seconds, e.skipped, e.pairs)));
  return log->Flush();
}

}  // namespace

Status OpenLossLog(const std::string& path, uint32_t epochs_kept, WritableFile* log) {
  std::string kept = "epoch\tloss\tseconds\tpairs_per_second\tskipped\tpairs\n";
  std::string old_log;
  if (epochs_kept > 0 && ReadFileToString(path, &old_log).ok()) {
    std::istringstream old(old_log);
    std::string line;
    for (std::getline(old, line); std::getline(old, line);) {
      if (std::strtoul(line.c_str(), nullptr, 10) <= epochs_kept) kept += line + "\n";
    }
  }
  SG_RETURN_IF_ERROR(log->Open(path));
  SG_RETURN_IF_ERROR(log->Append(kept));
  return log->Flush();
}

Status TrainEpochs(EpochRun run, uint32_t epoch, TrainOptions* o, BudgetPlan* plan,
                   WritableFile* log, TrainStats* stats) {
  EpochLoop loop(run.blocks, o, &plan->last_epoch_share, run.transform, run.trainer, run.threads,
                 epoch);
  // This call's epochs after its first (which also warms the page cache and
  // starts the reader), checkpoints included: the budget's measured rate.
  double later_epochs_seconds = 0;
  uint32_t later_epochs = 0;
  // A plan may grow to twice its length when epochs run faster than measured,
  // never past the most a plan is given (kBudgetMaxEpochs).
  const double planned = PlannedEpochs(*plan);
  const double max_budget_epochs =
      std::max(planned, std::min(2 * planned, static_cast<double>(kBudgetMaxEpochs)));
  for (const uint32_t first = epoch; epoch < o->epochs; ++epoch) {
    const auto start = Clock::now();
    // Room is kept for the last checkpoint, the vectors file and the exit.
    if (run.budget) {
      const double end = o->budget_seconds * (1 - kBudgetEndMargin) - 2 * run.save_seconds;
      loop.set_last_epoch_deadline(run.call_start + std::chrono::duration_cast<Clock::duration>(
                                                        std::chrono::duration<double>(end)));
    }
    EpochStats e;
    SG_RETURN_IF_ERROR(loop.Train(epoch, run.checkpoint, &e));
    // Replanned from the call's second epoch on, or after its first when only
    // the last is left (a plan of two epochs has no later one to rate); after
    // the last too when it was trained whole, which time left may lengthen
    // (the rate, decayed to its floor, then rises to the longer schedule's).
    const bool last = epoch + 1 == o->epochs;
    if (run.budget && !(last && loop.last_epoch_share() < 1) &&
        (epoch > first || epoch + 2 >= o->epochs)) {
      if (last) SetPlannedEpochs(o->epochs, plan);  // its share grew to the whole epoch
      // This one's checkpoint, and at the end one more and the vectors
      // file, are still to be written.
      const double per_epoch =
          (later_epochs_seconds + SecondsSince(start) + run.save_seconds) / (later_epochs + 1);
      SG_RETURN_IF_ERROR(Replan(epoch + 1, per_epoch, SecondsSince(run.call_start),
                                run.save_seconds, last ? loop.next_epoch_start_seconds() : 0,
                                max_budget_epochs, run.plan_path, o, plan, stats));
    }
    if ((epoch + 1) % o->checkpoint_every == 0 || epoch + 1 == o->epochs) {
      const auto save_start = Clock::now();
      SG_RETURN_IF_ERROR(run.trainer->CopyModelToHost());
      SG_RETURN_IF_ERROR(run.model->Save(run.checkpoint, epoch + 1, run.stamp));
      run.save_seconds = SecondsSince(save_start);
    }
    e.seconds = SecondsSince(start);
    if (epoch > first) {
      later_epochs_seconds += e.seconds;
      ++later_epochs;
    }
    SG_RETURN_IF_ERROR(AppendLossLine(e, log));
    stats->epochs.push_back(e);
    if (o->on_epoch) o->on_epoch(*stats, e);
  }
  loop.Release();
  // The last epoch's share as trained (refitted to the time left).
  if (run.budget && !stats->epochs.empty() && stats->epochs.back().epoch == o->epochs &&
      std::abs(loop.last_epoch_share() - stats->last_epoch_share) >= 0.005) {
    stats->last_epoch_share = loop.last_epoch_share();
    stats->budget_replanned = true;
  }
  return Status::OK();
}

}  // namespace streamglove
