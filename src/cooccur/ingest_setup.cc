#include "cooccur/ingest_setup.h"

#include <algorithm>
#include <unordered_set>

#include <fmt/format.h>

#include "cooccur/fixed_point.h"
#include "corpus/fingerprint.h"
#include "vocab/subsampling.h"

namespace streamglove {

StoreWindow::StoreWindow(const StoreConfig& store, const std::vector<VocabEntry>& vocab) {
  if (store.subsample > 0) {
    // The keep probabilities from the vocabulary's counts, whose sum is
    // word2vec's train_words.
    uint64_t tokens = 0;
    for (const VocabEntry& e : vocab) tokens += e.count;
    std::vector<double> keep;
    for (const VocabEntry& e : vocab)
      keep.push_back(SubsampleKeepProbability(e.count, tokens, store.subsample));
    subsampled = std::make_unique<SubsampledWindow>(std::move(keep), store.window, store.weighting,
                                                    store.scale);
  }
  config =
      WindowConfig{store.window, store.symmetric, store.scale, store.weighting, subsampled.get()};
}

StoreConfig IngestStoreConfig(const CorpusOptions& corpus, const IngestOptions& options) {
  StoreConfig c;
  c.window = options.window;
  c.symmetric = options.symmetric;
  c.weighting = options.weighting;
  c.subsample = options.subsample;
  c.scale = CountScale(options.window, options.weighting, options.subsample > 0);
  c.tokenizer = TokenizerKindName(corpus.tokenizer);
  c.lowercase = corpus.lowercase;
  c.json_field = corpus.json_field;
  return c;
}

Status CheckStoreCompatible(const std::string& dir, const StoreConfig& have,
                            const StoreConfig& want) {
  auto differs = [&](const char* what, const std::string& a, const std::string& b) {
    return Status::InvalidArgument(
        fmt::format("{}: the store counts with {} {}; this run asks for {}", dir, what, a, b));
  };
  if (have.window != want.window)
    return differs("--window", fmt::to_string(have.window), fmt::to_string(want.window));
  if (have.symmetric != want.symmetric) {
    return differs("", have.symmetric ? "symmetric windows" : "--asymmetric",
                   want.symmetric ? "symmetric" : "--asymmetric");
  }
  if (have.weighting != want.weighting) {
    return differs("--weighting", DistanceWeightingName(have.weighting),
                   DistanceWeightingName(want.weighting));
  }
  if (have.subsample != want.subsample) {
    return differs("--subsample", fmt::to_string(have.subsample), fmt::to_string(want.subsample));
  }
  if (have.tokenizer != want.tokenizer)
    return differs("--tokenizer", have.tokenizer, want.tokenizer);
  if (have.lowercase != want.lowercase)
    return differs("--lowercase", fmt::to_string(have.lowercase), fmt::to_string(want.lowercase));
  if (have.json_field != want.json_field)
    return differs("--json-field", have.json_field, want.json_field);
  return Status::OK();
}

Status SelectInputs(const std::string& store_dir, const std::vector<InputFile>& inputs,
                    const IngestOptions& options, Store* store, InputSelection* selected,
                    IngestStats* stats) {
  std::vector<std::string> fingerprints(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i)
    SG_RETURN_IF_ERROR(FingerprintFile(inputs[i].path, &fingerprints[i]));
  IngestProgress& progress = selected->progress;
  bool& resuming = selected->resuming;
  if (store->initialized()) SG_RETURN_IF_ERROR(store->GetProgress(&progress, &resuming));
  std::vector<InputFile>& todo = selected->inputs;
  std::vector<std::string>& todo_fingerprints = selected->fingerprints;
  std::unordered_set<std::string> taken;
  if (resuming) {
    const auto it = std::find(fingerprints.begin(), fingerprints.end(), progress.fingerprint);
    if (it == fingerprints.end()) {
      return Status::InvalidArgument(fmt::format(
          "{}: the store holds a partly ingested input ({}); run ingest again with it to finish it",
          store_dir, progress.path));
    }
    if (options.force) {
      return Status::InvalidArgument(
          fmt::format("{}: an interrupted ingest of {} is pending: rerun without --force to finish "
                      "it (a forced rerun would count the inputs it already finished again)",
                      store_dir, progress.path));
    }
    const size_t i = it - fingerprints.begin();
    todo.push_back(inputs[i]);
    todo_fingerprints.push_back(fingerprints[i]);
    taken.insert(fingerprints[i]);
    stats->resumed = true;
    stats->messages.push_back(
        fmt::format("resuming {} at byte {}", inputs[i].path, progress.offset));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!taken.insert(fingerprints[i]).second) {
      if (!(resuming && fingerprints[i] == progress.fingerprint)) {
        stats->messages.push_back(
            fmt::format("skipping {}: same content as another input of this run", inputs[i].path));
      }
      continue;
    }
    if (store->initialized() && !options.force) {
      InputRecord record;
      bool found = false;
      SG_RETURN_IF_ERROR(store->FindInput(fingerprints[i], &record, &found));
      if (found) {
        ++stats->inputs_skipped;
        stats->messages.push_back(
            fmt::format("skipping {}: already ingested (as {}; --force to count it again)",
                        inputs[i].path, record.path));
        continue;
      }
    }
    todo.push_back(inputs[i]);
    todo_fingerprints.push_back(fingerprints[i]);
  }
  return Status::OK();
}

}  // namespace streamglove
