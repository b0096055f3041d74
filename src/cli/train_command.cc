#include "cli/train_command.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "cli/corpus_flags.h"
#include "cli/subword_flags.h"
#include "streamglove/units.h"

namespace streamglove {

namespace {

// "12 epochs", or with a budget's partial last epoch "2.6 epochs".
std::string PlannedEpochsText(const TrainStats& s) {
  if (s.last_epoch_share >= 1) return fmt::format("{} epochs", s.epochs_planned);
  return fmt::format("{} epochs",
                     std::round((s.epochs_planned - 1 + s.last_epoch_share) * 100) / 100);
}

}  // namespace

// What a budget chose (nothing without one).
void PrintTrainPlan(double budget_seconds, const std::string& plan_path, const TrainStats& s) {
  if (!s.budget_planned) return;
  const std::string glove =
      s.objective == Objective::kGlove ? fmt::format(" (x_max {})", s.x_max) : "";
  const std::string how =
      s.budget_resumed
          ? fmt::format("resumed from {}", plan_path)
          : fmt::format("predicted {} (measured {}){}", FormatDuration(s.budget_predicted_seconds),
                        s.budget_rates,
                        s.budget_short
                            ? fmt::format("; the budget is short of {} epochs", s.budget_min_epochs)
                            : "");
  fmt::print(stderr, "train: budget {}: {}{}, dim {}, {}, eta {}, {}\n",
             FormatDuration(budget_seconds), ObjectiveName(s.objective), glove, s.dim,
             PlannedEpochsText(s), s.eta, how);
}

void PrintTrainEpoch(const TrainStats& s, const EpochStats& e) {
  fmt::print(stderr, "train: epoch {}/{}: loss {:.6f}, {:.1f} s, {:.2f} M pairs/s{}\n", e.epoch,
             s.epochs_planned, e.loss, e.seconds, e.pairs / e.seconds / 1e6,
             s.objective == Objective::kSgns
                 ? fmt::format(" ({:.2f} M positive updates/s)", e.updates / e.seconds / 1e6)
                 : "");
}

void PrintTrainSummary(const TrainOptions& o, const std::string& output, const TrainStats& stats) {
  if (stats.store_subsample > 0 && stats.objective == Objective::kSgns) {
    fmt::print(stderr,
               "train: the store was subsampled before windowing (t = {}): --subsample not applied "
               "again\n",
               stats.store_subsample);
  }
  double seconds = 0, pairs = 0;
  for (const EpochStats& e : stats.epochs) {
    seconds += e.seconds;
    pairs += static_cast<double>(e.pairs);
  }
  fmt::print(
      stderr,
      "train: {} words, {} pairs in {} ({} in {:.1f} s); {} epochs{} in {:.1f} s "
      "({:.2f} M pairs/s, {}); vectors in {}\n",
      stats.vocab_size, stats.pairs,
      stats.tile_parts > 0 ? fmt::format("{0} x {0} tiles", stats.tile_parts)
                           : fmt::format("{} blocks", stats.blocks),
      stats.blocks_built ? "built" : "reused", stats.block_build_seconds, stats.epochs.size(),
      stats.start_epoch > 0  ? fmt::format(" (resumed after {})", stats.start_epoch)
      : o.warm_start.empty() ? std::string()
                             : fmt::format(" (warm: {} of {} words from {})", stats.warm_words,
                                           stats.vocab_size, o.warm_start),
      seconds, seconds > 0 ? pairs / seconds / 1e6 : 0.0,
      o.device == TrainDevice::kCpu ? fmt::format("{} threads", stats.threads) : stats.device,
      output);
  if (o.device != TrainDevice::kCpu) {
    fmt::print(stderr, "train: {}\n",
               stats.device_resident_pairs > 0
                   ? fmt::format("the {} pairs kept on the device after the first epoch",
                                 stats.device_resident_pairs)
                   : std::string("every epoch's pairs streamed to the device"));
  }
  if (stats.subword_buckets > 0) {
    fmt::print(stderr,
               "train: subwords: {} n-grams of {} to {} characters ({:.1f} a word) in {} buckets; "
               "any word's vector from {}.model\n",
               stats.subword_ngrams, o.subwords.min_n, o.subwords.max_n,
               static_cast<double>(stats.subword_ngrams) / std::max<uint64_t>(stats.vocab_size, 1),
               stats.subword_buckets, output);
  }
  if (stats.budget_planned && !stats.budget_resumed) {
    fmt::print(stderr, "train: {} of the {} budget used (predicted {}){}\n",
               FormatDuration(stats.seconds), FormatDuration(o.budget_seconds),
               FormatDuration(stats.budget_predicted_seconds),
               stats.budget_replanned
                   ? fmt::format("; epochs ran at another rate than measured: the plan was "
                                 "changed to {}",
                                 PlannedEpochsText(stats))
                   : "");
  }
}

TrainCommand::TrainCommand(CLI::App* parent) {
  app_ = parent->add_subcommand("train",
                                "Train GloVe (or skip-gram with negative sampling) vectors on a "
                                "store (shuffled blocks streamed from disk, "
                                "Hogwild threads). "
                                "Writes OUT, OUT.log.tsv (loss per epoch) and OUT.checkpoint "
                                "(after every epoch; --resume continues).");
  app_->add_option("--store", store_, "Store directory")->required();
  app_->add_option("-o,--output", output_, "Vectors file to write")->required();
  std::string presets;
  for (const TrainPreset& p : TrainPresets())
    presets += fmt::format("\n  {}: {}", p.name, p.description);
  app_->add_option(
      "--preset", preset_,
      "Named settings for --objective, --dim, --epochs, --x-max (explicit flags win):" + presets);
  app_->add_option("--objective", objective_,
                   "glove, or sgns (word2vec's skip-gram with negative sampling, from the counts)")
      ->capture_default_str()
      ->check(CLI::IsMember({"glove", "sgns"}));
  app_->add_option("--dim", options_.dim, "Vector size")->capture_default_str();
  app_->add_option("--epochs", options_.epochs, "Passes over the co-occurrence pairs")
      ->capture_default_str();
  app_->add_option("--x-max", options_.x_max, "GloVe: weighting cutoff x_max")
      ->capture_default_str();
  app_->add_option("--alpha", options_.alpha, "GloVe: weighting exponent")->capture_default_str();
  app_->add_option(
      "--eta", options_.eta,
      fmt::format("Initial learning rate (default: {} for glove; for sgns on a store ingested "
                  "with --subsample {} for {} epochs or more and {} x {} / epochs for fewer, at "
                  "most {}; {} on others)",
                  DefaultEta(Objective::kGlove, false, 1),
                  DefaultEta(Objective::kSgns, true, kSgnsFullRateEpochs), kSgnsFullRateEpochs,
                  DefaultEta(Objective::kSgns, true, kSgnsFullRateEpochs), kSgnsFullRateEpochs,
                  DefaultEta(Objective::kSgns, true, 1), DefaultEta(Objective::kSgns, false, 1)));
  app_->add_option("--step-scale", options_.step_scale,
                   "GloVe: AdaGrad's steps of the vector components (not the biases) times this (1 "
                   "with --decay-fraction 0: "
                   "glove.c's update)")
      ->capture_default_str();
  app_->add_option("--decay-fraction", options_.decay_fraction,
                   "GloVe: over this last fraction of the run the step scale falls linearly to 0")
      ->capture_default_str();
  app_->add_option("--negatives", options_.negatives, "SGNS: noise words per positive update")
      ->capture_default_str();
  app_->add_option("--noise-power", noise_power_,
                   fmt::format("SGNS: noise words drawn from unigram^power. Default: {} with "
                               "subwords (fastText's), {} without (word2vec's)",
                               kSubwordNoisePower, kWordNoisePower));
  app_->add_option("--subsample", options_.subsample,
                   "SGNS: word2vec's subsampling threshold t (0: none)")
      ->capture_default_str();
  app_->add_option("--threads", options_.threads,
                   "Worker threads (0: one per core; with --device cuda, the host's)")
      ->capture_default_str();
  app_->add_option("--device", device_,
                   "cpu, or cuda: the updates on an NVIDIA GPU through the CUDA plugin "
                   "(libstreamglove_cuda.so beside the binary, or $STREAMGLOVE_CUDA_PLUGIN; "
                   "docs/gpu.md); same schedule, checkpoints and outputs; its 48 MiB of staging "
                   "buffers come out of --memory")
      ->capture_default_str()
      ->check(CLI::IsMember({"cpu", "cuda"}));
  app_->add_option("--device-memory", device_memory_,
                   "With --device: the most device memory the run may take (0: all that is "
                   "free); GloVe's pairs are kept there when they fit, else every epoch streams "
                   "them");
  app_->add_flag("--device-sequential", options_.device_sequential,
                 "With --device: one update at a time, in order (equal to --threads 1 on the "
                 "CPU to float rounding; for checking a device, slow)");
  app_->add_option("--seed", options_.seed, "Seed for initialisation and shuffling")
      ->capture_default_str();
  app_->add_option("--min-count", options_.min_count,
                   "Train only words seen at least this often (0: the store's cut, ingest's "
                   "--min-count when it was made)")
      ->capture_default_str();
  app_->add_option("--max-vocab", options_.max_vocab,
                   "Train at most this many words, the most frequent (0: the store's cut)")
      ->capture_default_str();
  app_->add_option("--memory", memory_,
                   "Peak memory of the whole process: the parameters, then blocks in what is left")
      ->capture_default_str();
  app_->add_option("--block-compression", compression_,
                   "Block stream files: auto (zstd when larger than half the available memory), "
                   "zstd or none")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "zstd", "none"}));
  app_->add_option("--schedule", schedule_,
                   "tiles (rounds in which no two threads share a word: the same vectors at any "
                   "--threads), hogwild (threads share rows without locks) or auto (tiles; a "
                   "device trains hogwild)")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "tiles", "hogwild"}));
  app_->add_option("--vectors", vectors_,
                   "word, word+context or both (concatenated). Default: word+context; word "
                   "for GloVe with subwords and no --context-weight")
      ->check(CLI::IsMember({"word", "word+context", "both"}));
  app_->add_option("--context-weight", context_weight_,
                   fmt::format("word+context's vectors are word + this x context. Default: {} "
                               "with subwords (whose word vector holds the n-grams), 1 without "
                               "(the paper's)",
                               kSubwordContextWeight));
  app_->add_option("--format", format_, "glove (text), word2vec (binary) or word2vec-text")
      ->capture_default_str()
      ->check(CLI::IsMember({"glove", "word2vec", "word2vec-text"}));
  app_->add_option("--checkpoint-every", options_.checkpoint_every, "Epochs between checkpoints")
      ->capture_default_str();
  app_->add_flag("--resume", options_.resume, "Continue from OUT.checkpoint");
  app_->add_option("--warm-start", options_.warm_start,
                   "Start from an earlier run's output (with its .checkpoint; the same "
                   "--objective and --dim) instead of random vectors: its words keep their rows, "
                   "new words start fresh. For training again after an ingest added to the store");
  app_->add_option(
      "--budget", budget_,
      "Wall time for the whole call (90s, 10m, 1h30m): the epochs, and the objective, dim and "
      "x-max "
      "not given, are chosen from the store's window and subsampling and rates measured on its "
      "pairs; the plan is "
      "written to OUT.plan, and --resume finishes it");
  AddSubwordFlags(app_, &options_.subwords);
  app_->add_flag("-q,--quiet", quiet_, "No per-epoch lines");
}

Status TrainCommand::Validate() {
  if (!preset_.empty()) {
    const TrainPreset* p = FindTrainPreset(preset_);
    if (p == nullptr)
      return Status::InvalidArgument(fmt::format("--preset: no preset named '{}'", preset_));
    if (app_->get_option("--objective")->count() == 0) objective_ = ObjectiveName(p->objective);
    if (app_->get_option("--dim")->count() == 0) options_.dim = p->dim;
    if (app_->get_option("--epochs")->count() == 0) options_.epochs = p->epochs;
    if (app_->get_option("--x-max")->count() == 0) options_.x_max = p->x_max;
    options_.subwords.chosen = true;  // words as atoms, unless --subwords was given
  }
  SG_RETURN_IF_ERROR(ParseMemoryFlag(memory_, &options_.memory_bytes));
  if (!device_memory_.empty()) {
    size_t bytes = 0;
    if (Status s = ParseByteSize(device_memory_, &bytes); !s.ok()) {
      return Status::InvalidArgument("--device-memory: " + s.message());
    }
    options_.device_memory_bytes = bytes;
  }
  ParseObjective(objective_, &options_.objective);  // checked by IsMember
  ParseTrainDevice(device_, &options_.device);      // the same
  if (!budget_.empty()) {
    if (app_->get_option("--epochs")->count() > 0) {
      return Status::InvalidArgument(
          "--budget chooses the epochs: give --budget or --epochs, not both");
    }
    Status s = ParseDuration(budget_, &options_.budget_seconds);
    if (!s.ok()) return Status::InvalidArgument("--budget: " + s.message());
    // A preset's or the user's settings stay; the budget chooses the rest.
    const bool preset = !preset_.empty();
    options_.budget_choices.objective = !preset && app_->get_option("--objective")->count() == 0;
    options_.budget_choices.dim = !preset && app_->get_option("--dim")->count() == 0;
    options_.budget_choices.x_max = !preset && app_->get_option("--x-max")->count() == 0;
  }
  if (app_->get_option("--noise-power")->count() > 0) options_.noise_power = noise_power_;
  if (app_->get_option("--context-weight")->count() > 0) options_.context_weight = context_weight_;
  if (!vectors_.empty()) {
    options_.vectors = vectors_ == "word"   ? VectorsKind::kWord
                       : vectors_ == "both" ? VectorsKind::kBoth
                                            : VectorsKind::kWordPlusContext;
  }
  ParseNamed(
      format_,  // checked by IsMember
      {VectorsFormat::kGloveText, VectorsFormat::kWord2VecText, VectorsFormat::kWord2VecBinary},
      VectorsFormatName, &options_.format);
  options_.block_compression = compression_ == "zstd"   ? BlockCompression::kZstd
                               : compression_ == "none" ? BlockCompression::kNone
                                                        : BlockCompression::kAuto;
  options_.schedule = schedule_ == "hogwild" ? TrainSchedule::kHogwild
                      : schedule_ == "tiles" ? TrainSchedule::kTiles
                                             : TrainSchedule::kAuto;
  options_.progress = !quiet_;
  if (!quiet_) {
    options_.on_plan = [budget = options_.budget_seconds, plan = output_ + ".plan"](
                           const TrainStats& s) { PrintTrainPlan(budget, plan, s); };
    options_.on_epoch = PrintTrainEpoch;
  }
  return ValidateTrainOptions(options_);
}

Status TrainCommand::Run() {
  TrainStats stats;
  SG_RETURN_IF_ERROR(Train(store_, output_, options_, &stats));
  if (!quiet_) PrintTrainSummary(options_, output_, stats);
  return Status::OK();
}

}  // namespace streamglove
