#include "cli/embed_command.h"

#include <fmt/format.h>

#include "cli/store_commands.h"
#include "cli/subword_flags.h"
#include "cli/train_command.h"
#include "streamglove/embed.h"
#include "streamglove/units.h"

namespace streamglove {

EmbedCommand::EmbedCommand(CLI::App* parent) {
  app_ = parent->add_subcommand(
      "embed",
      "Corpus to vectors in one command: count INPUT into a store made for the objective (kept: "
      "a later run with more inputs adds to it, a rerun after an interruption resumes), then "
      "train. A --budget covers both stages.");
  corpus_flags_.Register(app_);
  app_->add_option("-o,--output", output_, "Vectors file to write")->required();
  app_->add_option("--store", store_, "Store directory (default: OUTPUT.store)");
  app_->add_option("--objective", objective_,
                   "sgns (skip-gram; its store: --window 5 --subsample 1e-4) or glove (its store: "
                   "Stanford's demo windows, --window 15)")
      ->capture_default_str()
      ->check(CLI::IsMember({"glove", "sgns"}));
  app_->add_option("--budget", budget_,
                   "Wall time for the whole command, ingest included (90s, 10m, 1h30m): dim and "
                   "epochs are chosen from rates measured on the store's pairs");
  app_->add_option("--epochs", train_.epochs,
                   "Passes over the pairs, instead of a budget (default: 5 for sgns, 15 for glove)")
      ->excludes("--budget");
  app_->add_option("--dim", train_.dim, "Vector size (default: 100 for sgns, 50 for glove)");
  app_->add_option("--min-count", min_count_, "Train words seen at least this often")
      ->capture_default_str();
  app_->add_flag("--fixed-vocab", fixed_vocab_,
                 "GloVe's new store: fix the vocabulary at the first run's --min-count and drop "
                 "other words before windowing (Stanford GloVe's cooccur counts: a smaller store, "
                 "counted faster; later inputs' new words are reported, not counted). Skip-gram's "
                 "store is fixed anyway (its --subsample needs it)");
  app_->add_option("--threads", train_.threads, "Worker threads (0: one per core)")
      ->capture_default_str();
  app_->add_option("--memory", memory_, "Peak memory of either stage, the whole process")
      ->capture_default_str();
  app_->add_option("--seed", train_.seed, "Seed for initialisation and shuffling")
      ->capture_default_str();
  app_->add_option("--output-format", format_,
                   "The vectors file: glove (text), word2vec (binary) or word2vec-text")
      ->capture_default_str()
      ->check(CLI::IsMember({"glove", "word2vec", "word2vec-text"}));
  AddSubwordFlags(app_, &train_.subwords);
  app_->add_flag("-q,--quiet", quiet_, "No progress or summaries");
}

Status EmbedCommand::Validate() {
  Objective objective = Objective::kSgns;
  ParseObjective(objective_, &objective);  // checked by IsMember
  const EmbedSettings settings = EmbedSettingsFor(objective);
  const TrainOptions given = train_;
  ingest_ = settings.ingest;
  train_ = settings.train;
  if (app_->get_option("--dim")->count() > 0) train_.dim = given.dim;
  if (app_->get_option("--epochs")->count() > 0) train_.epochs = given.epochs;
  train_.threads = ingest_.threads = given.threads;
  train_.seed = given.seed;
  ingest_.min_count = min_count_;
  ingest_.fixed_vocabulary = fixed_vocab_;
  train_.min_count = min_count_;
  SG_RETURN_IF_ERROR(ParseMemoryFlag(memory_, &ingest_.memory_bytes));
  train_.memory_bytes = ingest_.memory_bytes;
  if (!budget_.empty()) {
    Status s = ParseDuration(budget_, &budget_seconds_);
    if (!s.ok()) return Status::InvalidArgument("--budget: " + s.message());
    train_.budget_seconds = budget_seconds_;
    train_.budget_choices.objective = false;
    train_.budget_choices.dim = app_->get_option("--dim")->count() == 0;
    train_.budget_choices.x_max = false;
  }
  ParseNamed(
      format_,  // checked by IsMember
      {VectorsFormat::kGloveText, VectorsFormat::kWord2VecText, VectorsFormat::kWord2VecBinary},
      VectorsFormatName, &train_.format);
  ingest_.progress = train_.progress = !quiet_;
  if (!quiet_) {
    train_.on_plan = [this](const TrainStats& s) {
      PrintTrainPlan(train_.budget_seconds, output_ + ".plan", s);
    };
    train_.on_epoch = PrintTrainEpoch;
  }
  if (store_.empty()) store_ = output_ + ".store";
  SG_RETURN_IF_ERROR(ValidateIngestOptions(ingest_));
  SG_RETURN_IF_ERROR(ValidateTrainOptions(train_));
  return corpus_flags_.Resolve(&corpus_, &inputs_);
}

Status EmbedCommand::Run() {
  EmbedOptions options;
  options.settings = EmbedSettings{ingest_, train_};
  options.budget_seconds = budget_seconds_;
  bool counted = false;
  if (!quiet_) {
    options.on_counting = [this] {
      fmt::print(stderr, "embed: 1/2: counting {} inputs into {} ({}: {}'s store)\n",
                 inputs_.size(), store_, EmbedStoreFlags(ingest_), objective_);
    };
    options.on_training = [this, &counted](const IngestStats& ingested, bool resumed,
                                           double budget_left) {
      counted = true;
      if (budget_left > 0) train_.budget_seconds = budget_left;  // for the plan and summary
      for (const std::string& m : ingested.messages) fmt::print(stderr, "ingest: {}\n", m);
      PrintIngestSummary(ingested);
      fmt::print(stderr, "embed: 2/2: training {}{}{}\n", objective_,
                 resumed ? " (resumed from " + output_ + ".checkpoint)" : "",
                 budget_left > 0
                     ? fmt::format(" in the {} left of the budget", FormatDuration(budget_left))
                     : "");
    };
  }
  EmbedStats stats;
  const Status s = Embed(store_, inputs_, corpus_, output_, std::move(options), &stats);
  if (quiet_) return s;
  if (!counted) {  // stopped before training: what counting did, if it finished
    for (const std::string& m : stats.ingest.messages) fmt::print(stderr, "ingest: {}\n", m);
    if (stats.ingest_seconds > 0) PrintIngestSummary(stats.ingest);
  }
  SG_RETURN_IF_ERROR(s);
  PrintTrainSummary(train_, output_, stats.train);
  fmt::print(
      stderr, "embed: vectors in {}; {} in all (counting {}){}\n", output_,
      FormatDuration(stats.seconds), FormatDuration(stats.ingest_seconds),
      budget_seconds_ > 0 ? fmt::format(", of a {} budget", FormatDuration(budget_seconds_)) : "");
  return Status::OK();
}

}  // namespace streamglove
