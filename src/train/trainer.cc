// Train(): the train command's engine. It opens the store's block stream
// for the run's cut (under the training lock), plans memory, settles a
// budget's plan (budget_run.h) and the learning rate, starts the model
// (fresh, resumed or warm), trains the epochs (epoch_loop.h) and writes the
// vectors, refusing a run that trained nothing.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <tbb/task_arena.h>

#include "store/ranked_vocab.h"
#include "store/store.h"
#include "streamglove/options.h"
#include "streamglove/train.h"
#include "streamglove/units.h"
#include "train/block_stream.h"
#include "train/bucket_trainer.h"
#include "train/budget_plan.h"
#include "train/budget_run.h"
#include "train/device/device_plugin.h"
#include "train/device/device_trainer.h"
#include "train/epoch_loop.h"
#include "train/run_parts.h"
#include "train/subword_rows.h"
#include "train/tile_schedule.h"
#include "train/train_tuning.h"
#include "train/warm_start.h"
#include "util/alias_table.h"
#include "util/config.h"
#include "util/duration.h"
#include "util/file.h"
#include "util/file_lock.h"
#include "util/hash.h"
#include "util/heap.h"
#include "util/threads.h"
#include "vectors/subword_model_file.h"
#include "vectors/vectors_writer.h"
#include "vocab/subword_index.h"

namespace streamglove {

namespace {

using Clock = std::chrono::steady_clock;

// The fewest n-gram buckets --memory may leave a subword model without
// --buckets: fewer would hash most n-grams together.
constexpr uint32_t kMinAutoSubwordBuckets = 1000;

// What starts a device's error lines.
constexpr char kCudaPurpose[] = "--device cuda";

// The hyperparameters a checkpoint of a model whose words are atoms must
// share with the run that resumes it. A budget's epochs are its plan's
// (OUT.plan), which may shorten or lengthen as the run goes
// (ReplanBudgetEpochs): they are left out of the hash.
uint64_t WordOptionsHash(const TrainOptions& o, uint32_t vocab, uint64_t pairs) {
  const std::string epochs = o.budget_seconds > 0 ? "budget" : std::to_string(o.epochs);
  if (o.objective == Objective::kSgns) {
    // "spread": the unit-update stream (a checkpoint of the earlier
    // back-to-back updates is not resumed by this one).
    return HashBytes(fmt::format("sgns spread-due {} {} {} {} {} {} {} {} {}", o.dim, o.eta,
                                 o.negatives, *o.noise_power, o.subsample, epochs, o.seed, vocab,
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

// Hyperparameters a checkpoint must share with the run that resumes it
// (WordOptionsHash), and a subword model's n-gram scheme.
uint64_t OptionsHash(const TrainOptions& o, uint32_t vocab, uint64_t pairs) {
  const uint64_t words = WordOptionsHash(o, vocab, pairs);
  if (!o.subwords.enabled) return words;
  return HashBytes(fmt::format("{} subwords {} {} {}", words, o.subwords.min_n, o.subwords.max_n,
                               o.subwords.buckets));
}

// Training's memory plan (config.h): the parameters first, then the blocks
// in what they leave. (SGNS holds less than GloVe's two blocks: one block as
// records and two half-block parts.) A budget's blocks are sized for the
// largest of `dims` that fits, so that every dim it may choose trains the
// same stream; the dims that do not fit are dropped from *dims. `staging`
// (a device's slots), `vocab_bytes` (the ranked words) and the process's
// own baseline are host memory held beside the parameters, taken before the
// blocks' share.
Status PlanTrainMemory(const TrainOptions& o, uint32_t cut, size_t staging, size_t vocab_bytes,
                       std::vector<uint32_t>* dims, size_t* block_bytes) {
  const auto fits = [&](uint32_t dim) {
    return ParameterBytes(o, cut, dim) + staging + vocab_bytes + config::kMinTrainBlockMemory <=
           o.memory_bytes;
  };
  if (!fits(dims->front())) {
    return Status::InvalidArgument(fmt::format(
        "--memory {} cannot hold the parameters of {} words x {} dims ({}){}, the words ({}) and "
        "the blocks (at least {}): raise --memory, or lower --max-vocab or --dim",
        FormatBytes(o.memory_bytes), cut, dims->front(),
        FormatBytes(ParameterBytes(o, cut, dims->front())),
        staging > 0 ? fmt::format(", the device's staging buffers ({})", FormatBytes(staging)) : "",
        FormatBytes(vocab_bytes), FormatBytes(config::kMinTrainBlockMemory)));
  }
  dims->erase(std::remove_if(dims->begin(), dims->end(), [&](uint32_t dim) { return !fits(dim); }),
              dims->end());
  const size_t held =
      config::kProcessBaselineBytes + ParameterBytes(o, cut, dims->back()) + staging + vocab_bytes;
  const size_t left = o.memory_bytes > held ? o.memory_bytes - held : 0;
  *block_bytes = std::clamp(left / config::kTrainBlockShareDivisor, config::kMinTrainBlockBytes,
                            config::kMaxTrainBlockBytes);
  return Status::OK();
}

// A subword model's n-gram index (*index; kept beside the parameters) and
// its buckets when --buckets is not given: fastText's 2,000,000, or fewer:
// as many as half of what --memory leaves beside the words' rows at `dim`
// (a budget's largest), the index, `held` (other host memory held with the
// parameters) and the smallest blocks; and no more than the words' n-grams
// (repeats counted), since more buckets than n-grams hold rows that nothing
// trains but every checkpoint writes.
Status PlanSubwords(const std::vector<VocabEntry>& vocab, uint32_t cut, uint32_t dim, size_t held,
                    TrainOptions* o, std::unique_ptr<SubwordIndex>* index, TrainStats* stats) {
  if (!o->subwords.enabled) return Status::OK();
  const bool given = o->subwords.buckets > 0;
  if (!given) o->subwords.buckets = kDefaultSubwordBuckets;
  *index = std::make_unique<SubwordIndex>(vocab, cut, o->subwords);
  if (!given) {
    TrainOptions words = *o;
    words.subwords.enabled = false;
    const size_t taken = ParameterBytes(words, cut, dim) + held + (*index)->memory_bytes() +
                         config::kMinTrainBlockMemory;
    const size_t left = o->memory_bytes > taken ? o->memory_bytes - taken : 0;
    const size_t fit =
        left / 2 / SubwordRows::MemoryBytes(1, dim, /*adagrad=*/o->objective != Objective::kSgns);
    if (fit < kMinAutoSubwordBuckets) {
      return Status::InvalidArgument(fmt::format(
          "--memory {} leaves no room for the n-gram rows of {} dims: raise --memory, or add "
          "--no-subwords",
          FormatBytes(o->memory_bytes), dim));
    }
    const uint64_t buckets =
        std::min<uint64_t>({kDefaultSubwordBuckets, fit, (*index)->ngram_total()});
    if (buckets < kDefaultSubwordBuckets) {
      o->subwords.buckets = static_cast<uint32_t>(std::max<uint64_t>(buckets, 1));
      index->reset();  // before its successor: never two in memory
      *index = std::make_unique<SubwordIndex>(vocab, cut, o->subwords);
    }
  }
  stats->subword_buckets = o->subwords.buckets;
  stats->subword_ngrams = (*index)->ngram_total();
  return Status::OK();
}

// Loads the device plugin and asks the device whether the parameters fit
// (*usable_bytes: the device memory the run may take).
Status OpenDevice(const TrainOptions& o, uint32_t cut, std::unique_ptr<DevicePlugin>* plugin,
                  DeviceTrainerOptions* device_options, std::string* device,
                  uint64_t* usable_bytes) {
  SG_RETURN_IF_ERROR(DevicePlugin::LoadCuda(plugin));
  device_options->device_memory = o.device_memory_bytes;
  return DeviceTrainer::CheckFits(plugin->get(), kCudaPurpose, cut, o.dim,
                                  ParameterBytes(o, cut, o.dim), *device_options, device,
                                  usable_bytes);
}

// The pairs a device keeps: an epoch's GloVe pairs (converted, the same
// every epoch) when the call trains more than one epoch and they fit the
// device memory left beside the parameters and the slots; 0 otherwise, and
// with --device-sequential, whose runs equal the CPU's streamed order.
uint64_t ResidentPairs(const TrainOptions& o, uint32_t cut, uint32_t start_epoch,
                       const BlockStreamInfo& blocks, const DeviceTrainerOptions& device_options,
                       uint64_t usable_bytes) {
  if (o.device != TrainDevice::kCuda || o.objective != Objective::kGlove || o.device_sequential ||
      o.epochs <= start_epoch + 1) {
    return 0;
  }
  const uint64_t taken = ParameterBytes(o, cut, o.dim) + device_options.StagingBytes();
  const uint64_t need = blocks.pairs * sizeof(sg_device_pair);
  return taken <= usable_bytes && need <= usable_bytes - taken ? blocks.pairs : 0;
}

// What trains `model`'s buckets: the device's trainer, or Hogwild threads.
Status MakeBucketTrainer(const TrainOptions& o, DevicePlugin* plugin,
                         const DeviceTrainerOptions& device_options, EmbeddingModel* model,
                         const NoiseTables& noise, const PairTransform* transform,
                         tbb::task_arena* arena, int threads,
                         std::unique_ptr<BucketTrainer>* trainer, TrainStats* stats) {
  if (o.device != TrainDevice::kCuda) {
    stats->device = TrainDeviceName(o.device);
    *trainer = std::make_unique<ThreadBucketTrainer>(arena, threads, model, transform);
    return Status::OK();
  }
  DeviceObjective objective;
  objective.objective = o.objective;
  objective.glove = GloveHyperOf(o);
  objective.sgns = SgnsHyperOf(o);
  objective.noise = noise.all;
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
    // the epochs, not the rate a resumed run must train on. So are the
    // buckets, which a resumed run, measuring one dim, would choose again.
    plan->eta = o->eta;
    plan->subword_buckets = o->subwords.enabled ? o->subwords.buckets : 0;
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

void NoteStream(const BlockStreamInfo& blocks, uint32_t cut, double store_subsample,
                TrainStats* stats) {
  stats->blocks_built = blocks.built;
  stats->blocks = blocks.block_records.size();
  stats->tile_parts = blocks.tile_parts;
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

// The objective's view of the pairs, and skip-gram's noise tables (over the
// `cut` first words of `vocab`; within each of `tile_parts` parts, if any).
void MakeObjective(const TrainOptions& o, const std::vector<VocabEntry>& vocab, uint32_t cut,
                   double store_subsample, uint32_t tile_parts, std::unique_ptr<AliasTable>* noise,
                   std::unique_ptr<PartNoise>* part_noise, PairTransform* transform) {
  if (o.objective != Objective::kSgns) {
    *transform = GloveTransform(o.x_max, o.alpha);
    return;
  }
  uint64_t tokens = 0;  // as word2vec's train_words: the trained vocabulary's counts
  for (uint32_t i = 0; i < cut; ++i) tokens += vocab[i].count;
  const std::vector<double> weights = NoiseWeights(vocab, cut, *o.noise_power);
  *noise = std::make_unique<AliasTable>(weights);
  if (tile_parts > 0) *part_noise = std::make_unique<PartNoise>(weights, tile_parts);
  // A store subsampled before windowing holds word2vec's subsampled counts.
  const double subsample = store_subsample > 0 ? 0 : o.subsample;
  *transform = SgnsTransform(SubsampleKeepProbabilities(vocab, cut, tokens, subsample));
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

// What a checkpoint of this run is stamped with: its hyperparameters and
// its words, so that a resume trains the same model.
CheckpointStamp MakeStamp(const TrainOptions& o, const std::vector<VocabEntry>& vocab, uint32_t cut,
                          uint64_t pairs) {
  CheckpointStamp stamp;
  stamp.options_hash = OptionsHash(o, cut, pairs);
  WordsHash words;
  for (uint32_t i = 0; i < cut; ++i) words.Add(vocab[i].word);
  stamp.words_hash = words.value();
  return stamp;
}

// The trained model's vectors file, and a subword model's OUT.model.
// Folds the n-gram rows into the word rows: call after the last checkpoint.
Status WriteTrainedVectors(const TrainOptions& o, const std::vector<VocabEntry>& vocab,
                           const std::string& output, EmbeddingModel* model) {
  model->FoldSubwords();
  const ParameterRows rows{model->vocab(), model->dim(), RowStride(model->dim()), model->word(0),
                           model->context(0)};
  SG_RETURN_IF_ERROR(CheckFinite(rows, o));
  SG_RETURN_IF_ERROR(WriteVectors(output, vocab, rows, *o.vectors, *o.context_weight, o.format));
  if (const SubwordRows* ngrams = model->subwords()) {
    const NgramRows table{o.subwords, ngrams->stride(), ngrams->rows()};
    SG_RETURN_IF_ERROR(
        WriteSubwordModel(output + ".model", vocab, rows, *o.vectors, *o.context_weight, table));
  }
  return Status::OK();
}

}  // namespace

Status Train(const std::string& store_dir, const std::string& output, const TrainOptions& options,
             TrainStats* stats) {
  const auto call_start = Clock::now();
  *stats = TrainStats();
  MapLargeAllocations(config::kTrainMappedAllocationBytes);  // --memory holds at small budgets
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
  uint64_t device_usable = 0;
  if (o.device == TrainDevice::kCuda) {
    SG_RETURN_IF_ERROR(
        OpenDevice(o, cut, &plugin, &device_options, &stats->device, &device_usable));
    staging = device_options.StagingBytes();
  }
  ResolveSubwords(&o);
  std::unique_ptr<SubwordIndex> subwords;
  SG_RETURN_IF_ERROR(
      PlanSubwords(vocab, cut, dims.back(), staging + ranked.memory_bytes(), &o, &subwords, stats));
  size_t block_bytes = 0;
  // The ranked words stay with the parameters (the vectors file names them).
  SG_RETURN_IF_ERROR(PlanTrainMemory(
      o, cut, staging, ranked.memory_bytes() + (subwords ? subwords->memory_bytes() : 0), &dims,
      &block_bytes));
  std::unique_ptr<FileLock> blocks_lock;
  SG_RETURN_IF_ERROR(FileLock::Acquire(
      store_dir + "/" + kBlockStreamLockFile,
      store_dir + ": another training of this store is running (it reads blocks/)",
      /*pid_required=*/false, &blocks_lock));
  BlockStreamInfo blocks;
  const auto build_start = Clock::now();
  // A device trains random blocks: its threads are Hogwild warps.
  const BlockLayout layout = o.device == TrainDevice::kCpu && o.schedule != TrainSchedule::kHogwild
                                 ? BlockLayout::kTiles
                                 : BlockLayout::kRandom;
  SG_RETURN_IF_ERROR(OpenBlockStream(store.get(), store_dir + "/" + kBlockStreamDir, ranked,
                                     block_bytes, layout, o.block_compression, &blocks));
  stats->block_build_seconds = SecondsSince(build_start);
  NoteStream(blocks, cut, store->config().subsample, stats);
  store.reset();  // training reads only the blocks: a snapshot of the store
  // What the build and the store freed (12-20 MiB at --memory 256M) would
  // otherwise stay resident beside the parameters mapped next.
  ReturnFreedHeap();

  std::unique_ptr<AliasTable> noise;  // before the models that point to them
  std::unique_ptr<PartNoise> part_noise;
  PairTransform transform;
  MakeObjective(o, vocab, cut, stats->store_subsample, blocks.tile_parts, &noise, &part_noise,
                &transform);
  const NoiseTables noise_tables{noise.get(), part_noise.get()};
  tbb::task_arena arena(threads);

  double save_seconds = 0;  // one checkpoint's write, as last measured
  if (plan_needed) {
    SG_RETURN_IF_ERROR(MeasureAndPlanBudget(blocks, transform, noise_tables, subwords.get(), cut,
                                            dims, checkpoint, call_start, &arena, threads, &o,
                                            &plan, &save_seconds, stats));
  }
  SG_RETURN_IF_ERROR(SetRate(plan_needed, plan_path, &o, &plan, stats));
  NotePlan(o, plan, budget, stats);

  std::unique_ptr<EmbeddingModel> model;
  SG_RETURN_IF_ERROR(MakeModel(o, cut, o.dim, noise_tables, subwords.get(), &model));
  const CheckpointStamp stamp = MakeStamp(o, vocab, cut, blocks.pairs);
  uint32_t epoch = 0;
  const auto load_start = Clock::now();
  SG_RETURN_IF_ERROR(StartModel(o, checkpoint, stamp, vocab, model.get(), &epoch, stats));
  // A resumed plan measured no checkpoint's write: reading one is the estimate.
  if (save_seconds == 0 && stats->start_epoch > 0) save_seconds = SecondsSince(load_start);
  device_options.resident_pairs =
      ResidentPairs(o, cut, epoch, blocks, device_options, device_usable);
  stats->device_resident_pairs = device_options.resident_pairs;
  // The trainer takes the model as it is now, fresh or resumed (a device
  // copies it); the plugin outlives it.
  std::unique_ptr<BucketTrainer> trainer;
  SG_RETURN_IF_ERROR(MakeBucketTrainer(o, plugin.get(), device_options, model.get(), noise_tables,
                                       &transform, &arena, threads, &trainer, stats));
  WritableFile log;
  SG_RETURN_IF_ERROR(OpenLossLog(output + ".log.tsv", epoch, &log));

  EpochRun run{&blocks,   &transform, trainer.get(), model.get(), threads,     checkpoint,
               plan_path, stamp,      call_start,    budget,      save_seconds};
  SG_RETURN_IF_ERROR(TrainEpochs(run, epoch, &o, &plan, &log, stats));
  SG_RETURN_IF_ERROR(trainer->CopyModelToHost());
  SG_RETURN_IF_ERROR(log.Close(/*sync=*/false));
  SG_RETURN_IF_ERROR(CheckTrained(o, *stats));
  SG_RETURN_IF_ERROR(WriteTrainedVectors(o, vocab, output, model.get()));
  stats->seconds = SecondsSince(call_start);
  return Status::OK();
}

}  // namespace streamglove
