#include "streamglove/embed.h"

#include <algorithm>
#include <chrono>
#include <filesystem>

#include <fmt/format.h>

#include "streamglove/units.h"
#include "util/duration.h"
#include "util/progress.h"

namespace streamglove {

namespace {

// Below this share of the budget (or 5 s) left after counting, training
// would be a gesture: Embed stops and says so instead.
constexpr double kLeastTrainingShare = 0.1;
constexpr double kLeastTrainingSeconds = 5;

}  // namespace

std::string EmbedStoreFlags(const IngestOptions& o) {
  // --subsample implies --fixed-vocab.
  return o.subsample > 0 ? fmt::format("--window {} --subsample {}", o.window, o.subsample)
                         : fmt::format("--window {} --min-count {}{}", o.window, o.min_count,
                                       o.fixed_vocabulary ? " --fixed-vocab" : "");
}

EmbedSettings EmbedSettingsFor(Objective objective) {
  EmbedSettings s;  // min-count: the options' default, 5
  s.train.objective = objective;
  if (objective == Objective::kSgns) {
    s.ingest.window = 5;
    s.ingest.subsample = 1e-4;
    s.train.dim = 100;
    s.train.epochs = 5;
  } else {
    const TrainPreset* demo = FindTrainPreset("glove-demo");
    s.ingest.window = 15;
    s.train.dim = demo->dim;
    s.train.epochs = demo->epochs;
    s.train.x_max = demo->x_max;
  }
  return s;
}

Status Embed(const std::string& store, const std::vector<InputFile>& inputs,
             const CorpusOptions& corpus, const std::string& output, EmbedOptions options,
             EmbedStats* stats) {
  *stats = EmbedStats();
  const auto start = std::chrono::steady_clock::now();
  const IngestOptions& ingest = options.settings.ingest;
  TrainOptions& train = options.settings.train;
  // One progress line over both stages, with one ETA (the budget's end).
  ScopedProgressJob job("embed", options.budget_seconds);
  job.SetStage("1/2 counting", /*last=*/false);
  if (options.on_counting) options.on_counting();
  const Status ingested = Ingest(store, inputs, corpus, ingest, &stats->ingest);
  if (stats->ingest.settings_differ) {
    return Status::InvalidArgument(fmt::format(
        "{}; embed --objective {} makes its store with {}: give it another --store, or train "
        "this one with `streamglove train --store {}`",
        ingested.message(), ObjectiveName(train.objective), EmbedStoreFlags(ingest), store));
  }
  SG_RETURN_IF_ERROR(ingested);
  stats->ingest_seconds = SecondsSince(start);

  const double budget = options.budget_seconds;
  const double left = budget - stats->ingest_seconds;
  if (budget > 0 && left < std::max(kLeastTrainingSeconds, kLeastTrainingShare * budget)) {
    return Status::InvalidArgument(fmt::format(
        "counting took {} of the {} budget, leaving too little to train: give a larger --budget "
        "(the store {} is kept, its inputs are not counted again)",
        FormatDuration(stats->ingest_seconds), FormatDuration(budget), store));
  }
  if (budget > 0) train.budget_seconds = left;
  // Training stopped part way (kill -9, Ctrl-C) on a store that has not
  // changed since: continue it rather than start again.
  std::error_code ec;
  const bool store_unchanged = stats->ingest.inputs_ingested == 0 && !stats->ingest.resumed;
  train.resume = store_unchanged && std::filesystem::exists(output + ".checkpoint", ec) &&
                 !std::filesystem::exists(output, ec);
  stats->resumed = train.resume;
  if (options.on_training) options.on_training(stats->ingest, train.resume, budget > 0 ? left : 0);
  job.SetStage("2/2 training", /*last=*/true);
  SG_RETURN_IF_ERROR(Train(store, output, train, &stats->train));
  stats->seconds = SecondsSince(start);
  return Status::OK();
}

}  // namespace streamglove
