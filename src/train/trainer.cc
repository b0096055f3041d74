// The train command's engine: block stream, epochs of shuffled blocks trained
// by Hogwild threads, a checkpoint after every epoch, and the vectors file.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <new>
#include <random>
#include <sstream>
#include <thread>

#include <fmt/format.h>
#include <tbb/task_arena.h>

#include "store/ranked_vocab.h"
#include "store/store.h"
#include "streamglove/interrupt.h"
#include "streamglove/options.h"
#include "streamglove/train.h"
#include "streamglove/units.h"
#include "train/block_stream.h"
#include "train/bucket_trainer.h"
#include "train/budget_plan.h"
#include "train/device/device_plugin.h"
#include "train/device/device_trainer.h"
#include "train/glove_model.h"
#include "train/sgns_model.h"
#include "train/train_tuning.h"
#include "train/warm_start.h"
#include "util/alias_table.h"
#include "util/duration.h"
#include "util/file.h"
#include "util/file_lock.h"
#include "util/hash.h"
#include "util/progress.h"
#include "util/threads.h"
#include "vectors/vectors_writer.h"

namespace streamglove {

namespace {

using Clock = std::chrono::steady_clock;

// What starts a device's error lines.
constexpr char kCudaPurpose[] = "--device cuda";

// Hyperparameters a checkpoint must share with the run that resumes it. A
// budget's epochs are its plan's (OUT.plan), which may shorten or lengthen
// as the run goes (ReplanBudgetEpochs): they are left out of the hash.
uint64_t OptionsHash(const TrainOptions& o, uint32_t vocab, uint64_t pairs) {
  const std::string epochs = o.budget_seconds > 0 ? "budget" : std::to_string(o.epochs);
  if (o.objective == Objective::kSgns) {
    // "spread": the unit-update stream (a checkpoint of the earlier
    // back-to-back updates is not resumed by this one).
    return HashBytes(fmt::format("sgns spread-due {} {} {} {} {} {} {} {} {}", o.dim, o.eta,
                                 o.negatives, o.noise_power, o.subsample, epochs, o.seed, vocab,
                                 pairs));
  }
  const std::string base = fmt::format("{} {} {} {} {} {} {} {}", o.dim, o.x_max, o.alpha, o.eta,
                                       o.grad_clip, o.seed, vocab, pairs);
  if (o.step_scale == 1 && o.decay_fraction == 0) return HashBytes(base);  // glove.c's update
  // A decaying schedule depends on the run's length: a checkpoint resumes
  // only a run of as many epochs.
  return HashBytes(fmt::format("{} schedule {} {} {}", base, o.step_scale, o.decay_fraction,
                               o.decay_fraction > 0 ? epochs : "0"));
}

size_t ParameterBytes(Objective objective, uint32_t vocab, uint32_t dim) {
  return objective == Objective::kSgns ? SgnsModel::MemoryBytes(vocab, dim)
                                       : GloveModel::MemoryBytes(vocab, dim);
}

// The objectives' hyperparameters in `o`.
GloveHyper GloveHyperOf(const TrainOptions& o) {
  return GloveHyper{static_cast<float>(o.eta), static_cast<float>(o.grad_clip), o.step_scale,
                    o.decay_fraction};
}
SgnsHyper SgnsHyperOf(const TrainOptions& o) {
  return SgnsHyper{static_cast<float>(o.eta), o.negatives};
}

// The objective's model of `dim`, fresh from options.seed, in *model. SGNS
// draws its noise words from `noise`, which must outlive it. Parameters the
// machine (or ulimit -v) refuses are an error naming their size.
Status MakeModel(const TrainOptions& o, uint32_t vocab, uint32_t dim, const AliasTable* noise,
                 std::unique_ptr<EmbeddingModel>* model) {
  try {
    if (o.objective == Objective::kSgns) {
      *model = std::make_unique<SgnsModel>(vocab, dim, o.seed, SgnsHyperOf(o), noise);
    } else {
      *model = std::make_unique<GloveModel>(vocab, dim, o.seed, GloveHyperOf(o));
    }
  } catch (const std::bad_alloc&) {
    return Status::IOError(
        fmt::format("out of memory: the parameters of {} words x {} dims ({}) did not fit in what "
                    "the machine (or ulimit -v) "
                    "gave; lower --max-vocab or --dim",
                    vocab, dim, FormatBytes(ParameterBytes(o.objective, vocab, dim))));
  }
  return Status::OK();
}

// Epoch e's reader: the blocks in their own order, each scattered by its own
// seed, deterministic per (seed, epoch, block), so a resumed run reads as an
// uninterrupted one would.
std::unique_ptr<BlockReader> OpenEpoch(const BlockStreamInfo* blocks, uint64_t seed, uint32_t e,
                                       const PairTransform* transform,
                                       tbb::task_arena* scatter_arena = nullptr) {
  std::vector<uint32_t> order(blocks->block_records.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::mt19937_64 order_rng(MixSeed(seed, e, ~uint64_t{0}));
  std::shuffle(order.begin(), order.end(), order_rng);
  std::vector<uint64_t> shuffle_seeds;
  for (uint32_t b : order) shuffle_seeds.push_back(MixSeed(seed, e, b));
  return std::make_unique<BlockReader>(blocks, std::move(order), std::move(shuffle_seeds),
                                       transform, kBucketRecords, scatter_arena);
}

// Measures what PlanBudget() needs of each dim: a throwaway model of it is
// made, trains the stream's first parts on the run's threads for
// `seconds_each` (waits for the reader included), at the learning rate of the
// start of a run of `min_epochs`, and writes a checkpoint to `scratch`
// (removed after). The part read meanwhile says how long the
// reader takes per part beside the trainers; the slower of the two is the
// rate. *rates says what was measured, for people.
Status MeasureBudgetCandidates(const BlockStreamInfo& blocks, const PairTransform& transform,
                               const TrainOptions& o, uint32_t vocab, const AliasTable* noise,
                               tbb::task_arena* arena, int threads,
                               const std::vector<uint32_t>& dims, uint32_t min_epochs,
                               double seconds_each, const std::string& scratch,
                               std::vector<BudgetCandidate>* candidates, std::string* rates) {
  std::unique_ptr<BlockReader> reader = OpenEpoch(&blocks, o.seed, 0, &transform);
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
    HogwildBucketTrainer trainer(arena, threads, model, &transform);
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
    SG_RETURN_IF_ERROR(MakeModel(o, vocab, dim, noise, &model));
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

const std::vector<TrainPreset>& TrainPresets() {
  static const std::vector<TrainPreset> presets = {
      {"glove-demo", "Stanford GloVe's demo.sh: dim 50, 15 epochs, x_max 10", Objective::kGlove, 50,
       15, 10},
      {"demo-time",
       "the best GloVe vectors found in the wall time of Stanford's whole demo: dim 200, 14 "
       "epochs, x_max 10",
       Objective::kGlove, 200, 14, 10},
      {"half-time",
       "GloVe, dim 100, 10 epochs, x_max 10 (29.6% analogy on wiki100M in about 300 s, a third of "
       "demo-time's)",
       Objective::kGlove, 100, 10, 10},
      {"sgns-demo-time",
       "skip-gram (sgns), dim 200, 24 epochs, on a window-5 store: demo-time's analogy score with "
       "better similarity, in Stanford's demo time",
       Objective::kSgns, 200, 24, 10},
  };
  return presets;
}

const TrainPreset* FindTrainPreset(const std::string& name) {
  for (const TrainPreset& p : TrainPresets()) {
    if (name == p.name) return &p;
  }
  return nullptr;
}

double DefaultEta(Objective objective, bool store_subsampled, uint32_t epochs) {
  if (objective == Objective::kGlove) return 0.05;
  if (!store_subsampled) return 0.075;
  constexpr double kWord2vecAlpha = 0.025, kShortRunCap = 0.05;
  return std::clamp(kWord2vecAlpha * kSgnsFullRateEpochs / std::max<uint32_t>(epochs, 1),
                    kWord2vecAlpha, kShortRunCap);
}

const char* ObjectiveName(Objective objective) {
  return objective == Objective::kSgns ? "sgns" : "glove";
}

bool ParseObjective(const std::string& name, Objective* objective) {
  if (name != "glove" && name != "sgns") return false;
  *objective = name == "sgns" ? Objective::kSgns : Objective::kGlove;
  return true;
}

const char* TrainDeviceName(TrainDevice device) {
  return device == TrainDevice::kCuda ? "cuda" : "cpu";
}

bool ParseTrainDevice(const std::string& name, TrainDevice* device) {
  if (name != "cpu" && name != "cuda") return false;
  *device = name == "cuda" ? TrainDevice::kCuda : TrainDevice::kCpu;
  return true;
}

Status ValidateTrainOptions(const TrainOptions& o) {
  if (o.dim < 1 || o.dim > kMaxDim)
    return Status::InvalidArgument(fmt::format("--dim must be between 1 and {}", kMaxDim));
  if (o.epochs < 1) return Status::InvalidArgument("--epochs must be at least 1");
  if (!o.warm_start.empty() &&
      (!PathExists(o.warm_start) || !PathExists(o.warm_start + ".checkpoint"))) {
    return Status::InvalidArgument(
        fmt::format("--warm-start {}: needs an earlier run's output and its {}.checkpoint",
                    o.warm_start, o.warm_start));
  }
  // Infinities pass the comparisons but train nothing: every update would
  // be non-finite and skipped, or weigh every pair alike.
  if (!(o.x_max > 0 && std::isfinite(o.x_max)))
    return Status::InvalidArgument("--x-max must be a positive number");
  if (!(o.alpha > 0 && std::isfinite(o.alpha)))
    return Status::InvalidArgument("--alpha must be a positive number");
  if (!(o.eta >= 0 && std::isfinite(o.eta)))
    return Status::InvalidArgument(
        "--eta must be a positive number (or 0 for the objective's and store's default)");
  if (!(o.step_scale > 0 && o.step_scale <= 100))
    return Status::InvalidArgument("--step-scale must be in (0, 100]");
  if (!(o.decay_fraction >= 0 && o.decay_fraction <= 1)) {
    return Status::InvalidArgument("--decay-fraction must be in [0, 1]");
  }
  if (o.negatives < 1 || o.negatives > kMaxNegatives) {
    return Status::InvalidArgument(
        fmt::format("--negatives must be between 1 and {}", kMaxNegatives));
  }
  if (!(o.noise_power >= 0 && o.noise_power <= 1))
    return Status::InvalidArgument("--noise-power must be in [0, 1]");
  if (!(o.subsample >= 0 && o.subsample < 1))
    return Status::InvalidArgument("--subsample must be in [0, 1)");
  SG_RETURN_IF_ERROR(CheckThreads(o.threads));
  if (o.checkpoint_every < 1)
    return Status::InvalidArgument("--checkpoint-every must be at least 1");
  if (o.memory_bytes < kMinMemoryBytes) {
    return Status::InvalidArgument(
        fmt::format("--memory must be at least {}", FormatBytes(kMinMemoryBytes)));
  }
  if (!(o.budget_seconds >= 0 && std::isfinite(o.budget_seconds)))
    return Status::InvalidArgument("--budget must be a positive duration");
  if (o.device_sequential && o.device == TrainDevice::kCpu) {
    return Status::InvalidArgument(
        "--device-sequential is for a device (on the CPU, --threads 1 is sequential)");
  }
  if (o.budget_seconds > 0 && o.device != TrainDevice::kCpu) {
    // A budget's rates are measured on the CPU's threads.
    return Status::InvalidArgument(
        fmt::format("--budget plans CPU training: with --device {} give --epochs (and --dim)",
                    TrainDeviceName(o.device)));
  }
  return Status::OK();
}

namespace {

// Training's memory plan (config.h): the parameters first, then the blocks
// in what they leave. (SGNS holds less than GloVe's two blocks: one block as
// records and two half-block parts.) A budget's blocks are sized for the
// largest of `dims` that fits, so that every dim it may choose trains the
// same stream; the dims that do not fit are dropped from *dims. `staging`
// (a device's slots) and `vocab_bytes` (the ranked words) are host memory
// held beside the parameters, taken before the blocks' share.
Status PlanMemory(const TrainOptions& o, uint32_t cut, size_t staging, size_t vocab_bytes,
                  std::vector<uint32_t>* dims, size_t* block_bytes) {
  const auto fits = [&](uint32_t dim) {
    return ParameterBytes(o.objective, cut, dim) + staging + vocab_bytes +
               config::kMinTrainBlockMemory <=
           o.memory_bytes;
  };
  if (!fits(dims->front())) {
    return Status::InvalidArgument(fmt::format(
        "--memory {} cannot hold the parameters of {} words x {} dims ({}){}, the words ({}) and "
        "the blocks (at least {}): raise --memory, or lower --max-vocab or --dim",
        FormatBytes(o.memory_bytes), cut, dims->front(),
        FormatBytes(ParameterBytes(o.objective, cut, dims->front())),
        staging > 0 ? fmt::format(", the device's staging buffers ({})", FormatBytes(staging)) : "",
        FormatBytes(vocab_bytes), FormatBytes(config::kMinTrainBlockMemory)));
  }
  dims->erase(std::remove_if(dims->begin(), dims->end(), [&](uint32_t dim) { return !fits(dim); }),
              dims->end());
  const size_t parameter_bytes =
      ParameterBytes(o.objective, cut, dims->back()) + staging + vocab_bytes;
  *block_bytes = std::clamp((o.memory_bytes - parameter_bytes) / config::kTrainBlockShareDivisor,
                            config::kMinTrainBlockBytes, config::kMaxTrainBlockBytes);
  return Status::OK();
}

// The loss log (OUT.log.tsv) of a run whose checkpoint holds `epochs_kept`
// epochs: their lines are kept, and those logged after the checkpoint (lost
// to a crash) are trained and logged again. A lost log is written anew.
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
    // A plan lengthened after what was its last epoch has no reader open yet.
    if (!reader_) reader_ = OpenEpoch(blocks_, o_->seed, epoch, transform_, scatter_arena_.get());
    std::unique_ptr<BlockReader> next_reader;
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
      if (reader_->exhausted() && (epoch + 1 < o_->epochs || (last && time_for_more_))) {
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
      if (Interrupted()) {
        meter_.Finish();
        return InterruptedStatus(fmt::format(
            "stopped in epoch {}; rerun with --resume to continue from {}", epoch + 1, checkpoint));
      }
      const double run_pairs =
          std::max(1.0, static_cast<double>(blocks_->pairs) * (RunEpochs() - first_epoch_));
      meter_.UpdateFraction(
          fmt::format("epoch {}/{}", epoch + 1, o_->epochs), pairs_trained_ / run_pairs,
          fmt::format("{:.2f} M pairs/s", pairs_trained_ / SecondsSince(start_) / 1e6));
    }
    if (last)
      last_share_ = static_cast<double>(epoch_pairs) / std::max<uint64_t>(blocks_->pairs, 1);
    reader_.reset();  // before the next opens: its buffers, if any, are freed first
    reader_ = next_reader
                  ? std::move(next_reader)
                  : (epoch + 1 < o_->epochs
                         ? OpenEpoch(blocks_, o_->seed, epoch + 1, transform_, scatter_arena_.get())
                         : nullptr);
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
  std::unique_ptr<BlockReader> reader_;  // the next epoch's
  BlockPart part_;
  uint64_t pairs_trained_ = 0;
  Clock::time_point last_epoch_deadline_ = Clock::time_point::max();
  double last_share_ = 1;  // the plan's, refitted in the last epoch
  // In the last epoch: the time left reaches past its end (ReachableShare).
  bool time_for_more_ = false;
};

}  // namespace

namespace {

// A budget run's first decisions: a resumed run reads its plan (into *o);
// a new one chooses its objective and x_max and the dims to measure, and
// *plan_needed says the plan is still to be made.
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

// A new budget run's plan: each dim of `dims` measured on the stream, then
// the objective's dim and epochs that fit what is left of the budget (into
// *o and *plan); *save_seconds: the chosen dim's checkpoint time.
Status MeasureAndPlanBudget(const BlockStreamInfo& blocks, const PairTransform& transform,
                            const AliasTable* noise, uint32_t cut,
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
      blocks, transform, measured, cut, noise, arena, threads, dims, min_epochs, seconds_each,
      checkpoint + ".measure", &candidates, &stats->budget_rates));
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

// Loads the device plugin and asks the device whether the parameters fit.
Status OpenDevice(const TrainOptions& o, uint32_t cut, std::unique_ptr<DevicePlugin>* plugin,
                  DeviceTrainerOptions* device_options, std::string* device) {
  SG_RETURN_IF_ERROR(DevicePlugin::LoadCuda(plugin));
  return DeviceTrainer::CheckFits(plugin->get(), kCudaPurpose, cut, o.dim,
                                  ParameterBytes(o.objective, cut, o.dim), *device_options, device);
}

// What trains `model`'s buckets: the device's trainer, or Hogwild threads.
Status MakeBucketTrainer(const TrainOptions& o, DevicePlugin* plugin,
                         const DeviceTrainerOptions& device_options, EmbeddingModel* model,
                         const AliasTable* noise, const PairTransform* transform,
                         tbb::task_arena* arena, int threads,
                         std::unique_ptr<BucketTrainer>* trainer, TrainStats* stats) {
  if (o.device != TrainDevice::kCuda) {
    stats->device = TrainDeviceName(o.device);
    *trainer = std::make_unique<HogwildBucketTrainer>(arena, threads, model, transform);
    return Status::OK();
  }
  DeviceObjective objective;
  objective.objective = o.objective;
  objective.glove = GloveHyperOf(o);
  objective.sgns = SgnsHyperOf(o);
  objective.noise = noise;
  std::unique_ptr<DeviceTrainer> device;
  SG_RETURN_IF_ERROR(DeviceTrainer::Open(plugin, kCudaPurpose, model, objective, arena, transform,
                                         device_options, &device));
  *trainer = std::move(device);
  return Status::OK();
}

// The learning rate: the objective's and epochs' default unless given,
// which a budget may just have chosen (a resumed one has its plan's rate);
// a new plan is written with it.
Status SetRate(bool plan_needed, const std::string& plan_path, TrainOptions* o, BudgetPlan* plan,
               TrainStats* stats) {
  if (o->eta == 0) o->eta = DefaultEta(o->objective, stats->store_subsample > 0, o->epochs);
  stats->eta = o->eta;
  if (plan_needed) {
    // The rate of the planned length, kept in the plan: a replan shortens
    // the epochs, not the rate a resumed run must train on.
    plan->eta = o->eta;
    SG_RETURN_IF_ERROR(WriteBudgetPlan(plan_path, *plan));
  }
  return Status::OK();
}

// The model's starting point: a checkpoint to resume (*epoch: its epochs),
// an earlier run's rows (--warm-start), or its fresh initialisation.
Status StartModel(const TrainOptions& o, const std::string& checkpoint,
                  const CheckpointStamp& stamp, const std::vector<VocabEntry>& vocab,
                  EmbeddingModel* model, uint32_t* epoch, TrainStats* stats) {
  if (o.resume && PathExists(checkpoint)) {
    SG_RETURN_IF_ERROR(model->Load(checkpoint, stamp, epoch));
    stats->start_epoch = *epoch;
  } else if (!o.warm_start.empty()) {
    SG_RETURN_IF_ERROR(WarmStart(o.warm_start, vocab, model, &stats->warm_words));
  }
  return Status::OK();
}

// A budget's plan against the epochs as they ran (`epochs_done`, each
// `per_epoch` seconds, `elapsed` so far): fewer epochs when the rest would
// overrun, more when it would leave the budget idle (at most `max_epochs`),
// the plan rewritten (the schedule decays over the new length).
// `start_seconds`: what starting the next epoch costs beyond its epoch time
// (a reader to open after what was the last epoch, none was read ahead).
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

Status AppendLossLine(const EpochStats& e, WritableFile* log) {
  SG_RETURN_IF_ERROR(
      log->Append(fmt::format("{}\t{:.6f}\t{:.3f}\t{:.0f}\t{}\t{}\n", e.epoch, e.loss, e.seconds,
                              e.pairs / e.seconds, e.skipped, e.pairs)));
  return log->Flush();
}

void NoteStream(const BlockStreamInfo& blocks, uint32_t cut, double store_subsample,
                TrainStats* stats) {
  stats->blocks_built = blocks.built;
  stats->blocks = blocks.block_records.size();
  stats->pairs = blocks.pairs;
  stats->vocab_size = cut;
  stats->store_subsample = store_subsample;
}

// The settings the run trains with, reported (TrainOptions::on_plan).
void NotePlan(const TrainOptions& o, const BudgetPlan& plan, bool budget, TrainStats* stats) {
  stats->budget_planned = budget;
  stats->last_epoch_share = budget ? plan.last_epoch_share : 1;
  stats->objective = o.objective;
  stats->dim = o.dim;
  stats->x_max = o.x_max;
  stats->epochs_planned = o.epochs;
  if (o.on_plan) o.on_plan(*stats);
}

// The objective's view of the pairs, and skip-gram's noise table (over the
// `cut` first words of `vocab`).
void MakeObjective(const TrainOptions& o, const std::vector<VocabEntry>& vocab, uint32_t cut,
                   double store_subsample, std::unique_ptr<AliasTable>* noise,
                   PairTransform* transform) {
  if (o.objective != Objective::kSgns) {
    *transform = GloveTransform(o.x_max, o.alpha);
    return;
  }
  uint64_t tokens = 0;  // as word2vec's train_words: the trained vocabulary's counts
  for (uint32_t i = 0; i < cut; ++i) tokens += vocab[i].count;
  *noise = std::make_unique<AliasTable>(NoiseWeights(vocab, cut, o.noise_power));
  // A store subsampled before windowing holds word2vec's subsampled counts.
  const double subsample = store_subsample > 0 ? 0 : o.subsample;
  *transform = SgnsTransform(SubsampleKeepProbabilities(vocab, cut, tokens, subsample));
}

// What the epochs of one call work with.
struct EpochRun {
  const BlockStreamInfo* blocks;
  const PairTransform* transform;
  BucketTrainer* trainer;
  EmbeddingModel* model;
  int threads;
  std::string checkpoint, plan_path;
  CheckpointStamp stamp;
  Clock::time_point call_start;
  bool budget;
  double save_seconds;  // one checkpoint's write, as last measured (0: not yet)
};

// Trains the epochs from `epoch` (the checkpoint's, or 0) to the plan's
// end, a checkpoint after every o->checkpoint_every and the last, a loss line
// and o->on_epoch after each. A budget's plan is checked after each epoch
// (Replan: o->epochs and *plan may change), its last epoch ends at the
// budget's end less the final writes, and what that epoch trained is
// reported in *stats.
Status TrainEpochs(EpochRun run, uint32_t epoch, TrainOptions* o, BudgetPlan* plan,
                   WritableFile* log, TrainStats* stats) {
  EpochLoop loop(run.blocks, o, &plan->last_epoch_share, run.transform, run.trainer, run.threads,
                 epoch);
  // This call's epochs after its first (which also warms the page cache and
  // starts the reader), checkpoints included: the budget's measured rate.
  double later_epochs_seconds = 0;
  uint32_t later_epochs = 0;
  // A plan may grow to twice its length when epochs run faster than measured.
  const double max_budget_epochs = 2 * PlannedEpochs(*plan);
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

// A run that trained nothing must not end as if it had: the vectors would
// be the random start, or what overflowing steps made of it. A resumed run
// whose checkpoint had every epoch trains none and writes the checkpoint's.
Status CheckTrained(const TrainOptions& o, const TrainStats& stats) {
  uint64_t updates = 0;
  for (const EpochStats& e : stats.epochs) updates += e.updates;
  if (updates == 0 && stats.start_epoch == 0) {
    return Status::InvalidArgument(fmt::format(
        "nothing was trained, so no vectors were written{}",
        o.budget_seconds > 0
            ? fmt::format(": the {} budget was spent before the first update (the blocks' "
                          "build and the rates' measurement come first); give a larger --budget, "
                          "or --epochs without one",
                          FormatDuration(o.budget_seconds))
            : std::string()));
  }
  if (stats.epochs.empty()) return Status::OK();
  const EpochStats& last = stats.epochs.back();
  if (last.updates > 0 && last.skipped == last.updates) {
    return Status::InvalidArgument(fmt::format(
        "every update of epoch {} was skipped as non-finite (NaN or Inf), so no vectors were "
        "written: the learning rate ({}) is too large for these counts; lower --eta",
        last.epoch, stats.eta));
  }
  return Status::OK();
}

// Steps that overflowed leave Inf or NaN in the parameters (skip-gram's
// updates are not checked one by one); such vectors are not written.
Status CheckFinite(const ParameterRows& rows, const TrainOptions& o) {
  for (const float* base : {rows.word, rows.context}) {
    for (uint32_t i = 0; i < rows.count; ++i) {
      const float* row = base + i * rows.stride;
      for (uint32_t b = 0; b < rows.dim; ++b) {
        if (!std::isfinite(row[b])) {
          return Status::InvalidArgument(fmt::format(
              "training diverged (a parameter of word rank {} is {}), so no vectors were "
              "written: lower --eta (the learning rate was {}){}",
              i, row[b], o.eta, o.eta > 0 ? "" : ", the default"));
        }
      }
    }
  }
  return Status::OK();
}

}  // namespace

Status Train(const std::string& store_dir, const std::string& output, const TrainOptions& options,
             TrainStats* stats) {
  const auto call_start = Clock::now();
  *stats = TrainStats();
  TrainOptions o = options;  // a budget's plan sets the objective, dim, epochs and x_max
  const int threads = ResolveThreads(o.threads);
  stats->threads = threads;
  const std::string checkpoint = output + ".checkpoint";
  const std::string plan_path = output + ".plan";

  std::unique_ptr<Store> store;
  SG_RETURN_IF_ERROR(Store::OpenForReading(store_dir, o.memory_bytes, &store));
  if (!store->initialized())
    return Status::InvalidArgument(fmt::format("{}: the store holds no vocabulary yet", store_dir));
  const RankedVocab ranked(store->config(), store->vocab(), o.min_count, o.max_vocab);
  const std::vector<VocabEntry>& vocab = ranked.words();
  const uint32_t cut = ranked.size();
  if (cut == 0) return Status::InvalidArgument("no word passes --min-count / --max-vocab");

  // A budget decides the objective before anything depends on it.
  const bool budget = o.budget_seconds > 0;
  bool plan_needed = false;
  BudgetPlan plan;
  std::vector<uint32_t> dims = {o.dim};
  if (budget) {
    SG_RETURN_IF_ERROR(
        StartBudget(store->config(), checkpoint, plan_path, &o, &plan, &dims, &plan_needed, stats));
  }
  // A device is asked first whether the parameters fit it, before the
  // block stream is built for it. Its staging slots are host memory beside
  // the parameters.
  std::unique_ptr<DevicePlugin> plugin;
  DeviceTrainerOptions device_options;
  device_options.sequential = o.device_sequential;
  size_t staging = 0;
  if (o.device == TrainDevice::kCuda) {
    SG_RETURN_IF_ERROR(OpenDevice(o, cut, &plugin, &device_options, &stats->device));
    staging = device_options.StagingBytes();
  }
  size_t block_bytes = 0;
  // The ranked words stay with the parameters (the vectors file names them).
  SG_RETURN_IF_ERROR(PlanMemory(o, cut, staging, ranked.memory_bytes(), &dims, &block_bytes));
  std::unique_ptr<FileLock> blocks_lock;
  SG_RETURN_IF_ERROR(FileLock::Acquire(
      store_dir + "/" + kBlockStreamLockFile,
      store_dir + ": another training of this store is running (it reads blocks/)",
      /*pid_required=*/false, &blocks_lock));
  BlockStreamInfo blocks;
  const auto build_start = Clock::now();
  SG_RETURN_IF_ERROR(OpenBlockStream(store.get(), store_dir + "/" + kBlockStreamDir, ranked,
                                     block_bytes, o.block_compression, &blocks));
  stats->block_build_seconds = SecondsSince(build_start);
  NoteStream(blocks, cut, store->config().subsample, stats);
  store.reset();  // training reads only the blocks: a snapshot of the store

  std::unique_ptr<AliasTable> noise;  // before the models that point to it
  PairTransform transform;
  MakeObjective(o, vocab, cut, stats->store_subsample, &noise, &transform);
  tbb::task_arena arena(threads);

  double save_seconds = 0;  // one checkpoint's write, as last measured
  if (plan_needed) {
    SG_RETURN_IF_ERROR(MeasureAndPlanBudget(blocks, transform, noise.get(), cut, dims, checkpoint,
                                            call_start, &arena, threads, &o, &plan, &save_seconds,
                                            stats));
  }
  SG_RETURN_IF_ERROR(SetRate(plan_needed, plan_path, &o, &plan, stats));
  NotePlan(o, plan, budget, stats);

  std::unique_ptr<EmbeddingModel> model;
  SG_RETURN_IF_ERROR(MakeModel(o, cut, o.dim, noise.get(), &model));
  CheckpointStamp stamp;
  stamp.options_hash = OptionsHash(o, cut, blocks.pairs);
  WordsHash words;
  for (uint32_t i = 0; i < cut; ++i) words.Add(vocab[i].word);
  stamp.words_hash = words.value();
  uint32_t epoch = 0;
  const auto load_start = Clock::now();
  SG_RETURN_IF_ERROR(StartModel(o, checkpoint, stamp, vocab, model.get(), &epoch, stats));
  // A resumed plan measured no checkpoint's write: reading one is the estimate.
  if (save_seconds == 0 && stats->start_epoch > 0) save_seconds = SecondsSince(load_start);
  // The trainer takes the model as it is now, fresh or resumed (a device
  // copies it); the plugin outlives it.
  std::unique_ptr<BucketTrainer> trainer;
  SG_RETURN_IF_ERROR(MakeBucketTrainer(o, plugin.get(), device_options, model.get(), noise.get(),
                                       &transform, &arena, threads, &trainer, stats));
  WritableFile log;
  SG_RETURN_IF_ERROR(OpenLossLog(output + ".log.tsv", epoch, &log));

  EpochRun run{&blocks,   &transform, trainer.get(), model.get(), threads,     checkpoint,
               plan_path, stamp,      call_start,    budget,      save_seconds};
  SG_RETURN_IF_ERROR(TrainEpochs(run, epoch, &o, &plan, &log, stats));
  SG_RETURN_IF_ERROR(trainer->CopyModelToHost());
  SG_RETURN_IF_ERROR(log.Close(/*sync=*/false));
  SG_RETURN_IF_ERROR(CheckTrained(o, *stats));
  const ParameterRows rows{model->vocab(), model->dim(), RowStride(model->dim()), model->word(0),
                           model->context(0)};
  SG_RETURN_IF_ERROR(CheckFinite(rows, o));
  SG_RETURN_IF_ERROR(WriteVectors(output, vocab, rows, o.vectors, o.format));
  stats->seconds = SecondsSince(call_start);
  return Status::OK();
}

}  // namespace streamglove
