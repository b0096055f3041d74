#include "cli/embed_command.h"

#include <chrono>
#include <filesystem>

#include <fmt/format.h>

#include "cli/store_commands.h"
#include "cli/train_command.h"
#include "streamglove/embed.h"
#include "util/duration.h"

namespace streamglove {

namespace {

// Below this share of the budget (or 5 s) left after ingesting, training
// would be a gesture: the run stops and says so instead.
constexpr double kLeastTrainingShare = 0.1;
constexpr double kLeastTrainingSeconds = 5;

std::string StoreSettingsText(const IngestOptions& o) {
  return o.subsample > 0 ? fmt::format("--window {} --subsample {}", o.window, o.subsample)
                         : fmt::format("--window {} --min-count {}", o.window, o.min_count);
}

}  // namespace

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

Status EmbedCommand::RunIngest(IngestStats* stats) {
  if (!quiet_) {
    fmt::print(stderr, "embed: 1/2: counting {} inputs into {} ({}: {}'s store)\n", inputs_.size(),
               store_, StoreSettingsText(ingest_), objective_);
  }
  const Status s = Ingest(store_, inputs_, corpus_, ingest_, stats);
  if (!quiet_) {
    for (const std::string& m : stats->messages) fmt::print(stderr, "ingest: {}\n", m);
  }
  if (stats->settings_differ) {
    return Status::InvalidArgument(fmt::format(
        "{}; embed --objective {} makes its store with {}: give it another --store, or train "
        "this one with `streamglove train --store {}`",
        s.message(), objective_, StoreSettingsText(ingest_), store_));
  }
  SG_RETURN_IF_ERROR(s);
  if (!quiet_) PrintIngestSummary(*stats);
  return Status::OK();
}

Status EmbedCommand::RunTrain(double budget_left, const IngestStats& ingested) {
  const std::string checkpoint = output_ + ".checkpoint";
  // Training stopped part way (kill -9, Ctrl-C) on a store that has not
  // changed since: continue it rather than start again.
  std::error_code ec;
  const bool store_unchanged = ingested.inputs_ingested == 0 && !ingested.resumed;
  train_.resume = store_unchanged && std::filesystem::exists(checkpoint, ec) &&
                  !std::filesystem::exists(output_, ec);
  if (train_.budget_seconds > 0) train_.budget_seconds = budget_left;
  if (!quiet_) {
    fmt::print(stderr, "embed: 2/2: training {}{}{}\n", objective_,
               train_.resume ? " (resumed from " + checkpoint + ")" : "",
               train_.budget_seconds > 0
                   ? fmt::format(" in the {} left of the budget", FormatDuration(budget_left))
                   : "");
  }
  TrainStats stats;
  SG_RETURN_IF_ERROR(Train(store_, output_, train_, &stats));
  if (!quiet_) PrintTrainSummary(train_, output_, stats);
  return Status::OK();
}

Status EmbedCommand::Run() {
  const auto start = std::chrono::steady_clock::now();
  IngestStats ingested;
  SG_RETURN_IF_ERROR(RunIngest(&ingested));
  const double ingest_seconds = SecondsSince(start);
  const double budget = budget_seconds_;
  const double left = budget - ingest_seconds;
  if (budget > 0 && left < std::max(kLeastTrainingSeconds, kLeastTrainingShare * budget)) {
    return Status::InvalidArgument(fmt::format(
        "counting took {} of the {} budget, leaving too little to train: give a larger --budget "
        "(the store {} is kept, its inputs are not counted again)",
        FormatDuration(ingest_seconds), FormatDuration(budget), store_));
  }
  SG_RETURN_IF_ERROR(RunTrain(left, ingested));
  if (!quiet_) {
    fmt::print(stderr, "embed: vectors in {}; {} in all (counting {}){}\n", output_,
               FormatDuration(SecondsSince(start)), FormatDuration(ingest_seconds),
               budget > 0 ? fmt::format(", of a {} budget", FormatDuration(budget)) : "");
  }
  return Status::OK();
}

}  // namespace streamglove
