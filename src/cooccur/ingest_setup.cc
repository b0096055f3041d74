#include "cooccur/ingest_setup.h"

#include <algorithm>
#include <unordered_set>

#include <fmt/format.h>

#include "cooccur/fixed_point.h"
#include "corpus/fingerprint.h"
#include "vocab/subsampling.h"
#include "vocab/vocab_index.h"

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
  // Keep probabilities depend on the counts, and a vocabulary file states
  // the vocabulary: both fix it.
  c.fixed_vocabulary =
      options.fixed_vocabulary || options.subsample > 0 || !options.vocab_file.empty();
  // A fixed vocabulary is cut when it is made; a growing one when it is read.
  c.min_count = c.fixed_vocabulary ? 1 : options.min_count;
  c.max_vocab = c.fixed_vocabulary ? 0 : options.max_vocab;
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
  if (!have.fixed_vocabulary && want.fixed_vocabulary && want.subsample == 0) {
    return Status::InvalidArgument(
        fmt::format("{}: the store's vocabulary grows with every input; --fixed-vocab and "
                    "--vocab choose a fixed one for a new store",
                    dir));
  }
  return Status::OK();
}

VocabCut FirstVocabularyCut(const StoreConfig& config, const IngestOptions& options) {
  if (!config.fixed_vocabulary) return VocabCut{};
  return VocabCut{options.min_count, options.max_vocab};
}

Status InitializeStore(const StoreConfig& config, std::vector<VocabEntry> vocab, Store* store,
                       IngestStats* stats) {
  if (vocab.empty())
    return Status::InvalidArgument("the vocabulary is empty (is --min-count too high?)");
  if (config.subsample == 0) {
    for (VocabEntry& e : vocab) e.count = 0;
  }
  if (!config.fixed_vocabulary) stats->new_words = vocab.size();
  return store->Initialize(config, vocab);
}

Status AddInputWords(std::vector<VocabEntry> seen, Store* store, IngestStats* stats) {
  std::vector<std::string> added;
  uint64_t added_tokens = 0;
  {
    const VocabIndex known(store->vocab());
    for (VocabEntry& e : seen) {
      if (known.Lookup(e.word) != VocabIndex::kUnknown) continue;
      added_tokens += e.count;
      added.push_back(std::move(e.word));
    }
  }
  if (!store->config().fixed_vocabulary) {
    stats->new_words = added.size();
    return store->AddWords(added);
  }
  stats->unknown_tokens = added_tokens;
  stats->unknown_words = added.size();
  if (!added.empty()) {
    stats->messages.push_back(fmt::format(
        "{} tokens of these inputs ({} distinct words, such as '{}') are outside the store's "
        "fixed vocabulary and are not counted (a store made without --fixed-vocab grows instead)",
        added_tokens, added.size(), added.front()));
  }
  return Status::OK();
}

namespace {

// Why an input ingested before under the same path cannot continue from
// `record` (empty when it can: it only grew, after a document end).
Status GrowthFrom(const InputFile& input, const InputRecord& record, std::string* why) {
  uint64_t ingested = 0, size = 0;
  if (!FingerprintSize(record.fingerprint, &ingested)) {
    *why = "its earlier record is malformed";
    return Status::OK();
  }
  std::string prefix;
  SG_RETURN_IF_ERROR(FingerprintFile(input.path, &prefix));
  FingerprintSize(prefix, &size);
  if (size < ingested) {
    *why = fmt::format("it holds {} bytes where {} were ingested", size, ingested);
    return Status::OK();
  }
  SG_RETURN_IF_ERROR(FingerprintFilePrefix(input.path, ingested, &prefix));
  if (prefix != record.fingerprint) {
    *why = fmt::format("its first {} bytes differ from those ingested", ingested);
  } else if (!record.ends_at_document_end) {
    *why =
        "it grew, but what was ingested did not end with a line end, so the appended bytes "
        "change its last document";
  } else {
    why->clear();
  }
  return Status::OK();
}

// An input not ingested before whose path was: the input it continues (the
// record it only grew from, if any, into *grown_from), or an error naming
// what changed.
Status CheckChangedInput(const InputFile& input, const std::vector<InputRecord>& records,
                         const InputRecord** grown_from) {
  *grown_from = nullptr;
  std::string why;
  for (const InputRecord& record : records) {
    if (record.path != input.path) continue;
    std::string reason;
    SG_RETURN_IF_ERROR(GrowthFrom(input, record, &reason));
    if (reason.empty()) {
      if (*grown_from == nullptr || record.bytes > (*grown_from)->bytes) *grown_from = &record;
    } else if (why.empty()) {
      why = std::move(reason);
    }
  }
  if (*grown_from != nullptr || why.empty()) return Status::OK();
  return Status::InvalidArgument(fmt::format(
      "{}: changed since it was ingested ({}): counts cannot be taken back out of a store; "
      "rebuild the store, or give --force to count this content as another input",
      input.path, why));
}

}  // namespace

Status SelectInputs(const std::string& store_dir, const std::vector<InputFile>& inputs,
                    const IngestOptions& options, Store* store, InputSelection* selected,
                    IngestStats* stats) {
  std::vector<std::string> fingerprints(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i)
    SG_RETURN_IF_ERROR(FingerprintFile(inputs[i].path, &fingerprints[i]));
  IngestProgress& progress = selected->progress;
  bool& resuming = selected->resuming;
  std::vector<InputRecord> records;
  if (store->initialized()) {
    SG_RETURN_IF_ERROR(store->GetProgress(&progress, &resuming));
    SG_RETURN_IF_ERROR(store->ListInputs(&records));
  }
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
      const InputRecord* grown_from = nullptr;
      SG_RETURN_IF_ERROR(CheckChangedInput(inputs[i], records, &grown_from));
      if (grown_from != nullptr) {
        IngestProgress from;
        from.offset = grown_from->bytes;
        from.tokens = grown_from->tokens;
        from.replaces = grown_from->fingerprint;
        selected->grown.emplace_back(todo.size(), std::move(from));
        stats->messages.push_back(
            fmt::format("{} grew since it was ingested: counting from byte {}", inputs[i].path,
                        grown_from->bytes));
      }
    }
    todo.push_back(inputs[i]);
    todo_fingerprints.push_back(fingerprints[i]);
  }
  return Status::OK();
}

}  // namespace streamglove
