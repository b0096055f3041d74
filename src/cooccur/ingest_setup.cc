#include "cooccur/ingest_setup.h"

#include <algorithm>
#include <unordered_set>
#include <utility>

#include <fmt/format.h>

#include "cooccur/batch_counter.h"
#include "cooccur/cooccur_tuning.h"
#include "cooccur/fixed_point.h"
#include "corpus/fingerprint.h"
#include "store/store_tuning.h"
#include "streamglove/phrases.h"
#include "streamglove/units.h"
#include "streamglove/vocab_file.h"
#include "streamglove/vocabulary.h"
#include "util/file.h"
#include "util/threads.h"
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

Status StartIngest(const std::vector<InputFile>& inputs, const IngestOptions& options,
                   IngestStats* stats, int* threads) {
  for (const InputFile& in : inputs) {
    if (in.path == "-")
      return Status::InvalidArgument(
          "ingest reads files it can re-read to resume: save stdin to a file first");
  }
  const int cores = AvailableCores();
  *threads = std::min(ResolveThreads(options.threads), cores);
  stats->threads = *threads;
  if (options.threads > cores) {
    stats->messages.push_back(fmt::format(
        "--threads {}: using {}, the cores this process may run on", options.threads, cores));
  }
  return Status::OK();
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
  if (corpus.phrases != nullptr && !corpus.phrases->empty())
    c.phrases = corpus.phrases->fingerprint();
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
  if (have.phrases != want.phrases) {
    const auto list = [](const std::string& f) {
      return f.empty() ? std::string("no phrases") : "the phrase list " + f;
    };
    return Status::InvalidArgument(
        fmt::format("{}: the store's tokens were joined with {}; this run joins {} (--phrases)",
                    dir, list(have.phrases), list(want.phrases)));
  }
  if (!have.fixed_vocabulary && want.fixed_vocabulary) {
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

std::string BelowCutNotice(const StoreConfig& config, const std::vector<VocabEntry>& by_rank) {
  if (config.fixed_vocabulary) return std::string();
  // The cut is a prefix of the ranks: the words of min_count tokens or more,
  // at most max_vocab of them. Words tied at its end have equal counts, so
  // the sums do not depend on how readers break ties.
  uint64_t tokens = 0, kept_tokens = 0, kept_words = 0;
  for (const VocabEntry& e : by_rank) {
    tokens += e.count;
    if (e.count >= config.min_count && (config.max_vocab == 0 || kept_words < config.max_vocab)) {
      ++kept_words;
      kept_tokens += e.count;
    }
  }
  const uint64_t below = tokens - kept_tokens;
  if (tokens == 0 || static_cast<double>(below) < config::kBelowCutNoticeShare * tokens)
    return std::string();
  return fmt::format(
      "the store's cut (--min-count {}{}) keeps {} of the {} words counted; the other {} hold "
      "{:.1f}% of the tokens, and a growing store counts their pairs too, so that later inputs "
      "can lift them over the cut (a store made with --fixed-vocab, by ingest or embed, drops them "
      "before counting: smaller, built faster, and its vocabulary does not grow)",
      config.min_count,
      config.max_vocab != 0 ? fmt::format(", --max-vocab {}", config.max_vocab) : std::string(),
      kept_words, by_rank.size(), by_rank.size() - kept_words,
      100.0 * static_cast<double>(below) / static_cast<double>(tokens));
}

Status InitializeStore(const StoreConfig& config, std::vector<VocabEntry> vocab, Store* store,
                       IngestStats* stats) {
  if (vocab.empty())
    return Status::InvalidArgument("the vocabulary is empty (is --min-count too high?)");
  if (!config.fixed_vocabulary) {
    if (std::string notice = BelowCutNotice(config, vocab); !notice.empty())
      stats->messages.push_back(std::move(notice));
    for (VocabEntry& e : vocab) e.count = 0;  // the batches count them
    stats->new_words = vocab.size();
  }
  return store->Initialize(config, std::move(vocab));
}

Status AdditionPassBytes(const IngestOptions& options, const CorpusOptions& corpus, int threads,
                         const std::vector<VocabEntry>& vocab, size_t* bytes) {
  // What the process has beside the open store, whose cache the loading of
  // the vocabulary filled.
  const auto beside_store = [](uint64_t memory) {
    return memory - std::min(memory, uint64_t{config::StoreMemoryBytes(memory)});
  };
  uint64_t vocab_bytes = vocab.size() * sizeof(VocabEntry);
  for (const VocabEntry& e : vocab) vocab_bytes += VocabIndex::OutOfLineBytes(e.word);
  const uint64_t least = vocab_bytes + LeastVocabularyMemory(corpus, threads);
  const uint64_t have = beside_store(options.memory_bytes);
  if (have >= least) {
    *bytes = have - vocab_bytes;
    return Status::OK();
  }
  // The store's share grows with --memory: step up to the least that does.
  uint64_t enough = options.memory_bytes;
  while (beside_store(enough) < least) enough += least - beside_store(enough);
  const uint64_t mib = uint64_t{1} << 20;
  return Status::InvalidArgument(fmt::format(
      "--memory {} is too small to add to this store, whose vocabulary of {} words takes {}: "
      "give at least {}M",
      FormatBytes(static_cast<double>(options.memory_bytes)), vocab.size(),
      FormatBytes(static_cast<double>(vocab_bytes)), (enough + mib - 1) / mib));
}

WordSource VocabFileWords(const std::string& path) {
  return [path](const WordVisitor& f) { return ForEachVocabFileWord(path, f); };
}

WordSource VocabWords(const std::vector<VocabEntry>* words) {
  return [words](const WordVisitor& f) -> Status {
    for (const VocabEntry& e : *words) SG_RETURN_IF_ERROR(f(e.word, e.count));
    return Status::OK();
  };
}

Status CheckNewWordsFit(const WordSource& words, uint64_t known_words, uint64_t known_bytes,
                        const IngestOptions& options, const CorpusOptions& corpus, int threads) {
  SG_RETURN_IF_ERROR(words([&](std::string_view word, uint64_t) {
    ++known_words;
    known_bytes += VocabIndex::OutOfLineBytes(word);
    return Status::OK();
  }));
  return BatchCounter::CheckVocabularyFits(options, corpus, threads, known_words, known_bytes);
}

Status AddInputWords(const WordSource& seen, const IngestOptions& options,
                     const CorpusOptions& corpus, int threads, Store* store, IngestStats* stats,
                     std::vector<uint64_t>* counts_by_id) {
  const VocabIndex known(store->vocab());
  if (counts_by_id != nullptr) {
    counts_by_id->assign(store->vocab().size(), 0);
    SG_RETURN_IF_ERROR(seen([&](std::string_view word, uint64_t count) {
      const uint32_t id = known.Lookup(word);
      if (id != VocabIndex::kUnknown) (*counts_by_id)[id] = count;
      return Status::OK();
    }));
  }
  // Only the words outside the store, each pass.
  const auto unknown = [&](const WordVisitor& f) -> Status {
    return seen([&](std::string_view word, uint64_t count) {
      return known.Lookup(word) == VocabIndex::kUnknown ? f(word, count) : Status::OK();
    });
  };
  uint64_t tokens = 0, words = 0;
  std::string example;
  SG_RETURN_IF_ERROR(unknown([&](std::string_view word, uint64_t count) {
    if (words++ == 0) example = word;
    tokens += count;
    return Status::OK();
  }));
  if (store->config().fixed_vocabulary) {
    stats->unknown_tokens = tokens;
    stats->unknown_words = words;
    if (words > 0) {
      stats->messages.push_back(fmt::format(
          "{} tokens of these inputs ({} distinct words, such as '{}') are outside the store's "
          "fixed vocabulary and are not counted (a store made without --fixed-vocab grows "
          "instead)",
          tokens, words, example));
    }
    return Status::OK();
  }
  SG_RETURN_IF_ERROR(CheckNewWordsFit(unknown, store->vocab().size(), known.out_of_line_bytes(),
                                      options, corpus, threads));
  std::vector<std::string> added;
  added.reserve(words);
  SG_RETURN_IF_ERROR(unknown([&](std::string_view word, uint64_t count) {
    added.emplace_back(word);
    // A new word's id follows the store's last, in `seen`'s order.
    if (counts_by_id != nullptr) counts_by_id->push_back(count);
    return Status::OK();
  }));
  stats->new_words = added.size();
  return store->AddWords(added);
}

namespace {

// Why `input` (of fingerprint `now`) cannot continue from `record`, an
// earlier version of it (empty when it can: it only grew, after a document
// end).
Status GrowthFrom(const InputFile& input, const std::string& now, const InputRecord& record,
                  std::string* why) {
  uint64_t ingested = 0, size = 0;
  if (!FingerprintSize(record.fingerprint, &ingested) || !FingerprintSize(now, &size)) {
    *why = "its earlier record is malformed";
    return Status::OK();
  }
  if (size < ingested) {
    *why = fmt::format("it holds {} bytes where {} were ingested", size, ingested);
    return Status::OK();
  }
  std::string prefix;
  SG_RETURN_IF_ERROR(FingerprintFilePrefix(input.path, ingested, &prefix));
  if (prefix != record.fingerprint) {
    *why = fmt::format("its first {} bytes differ from those ingested", ingested);
  } else if (!record.ends_at_document_end) {
    *why =
        "it grew, but what was ingested did not end with a line end (or was recorded by an "
        "older streamglove), so the appended bytes may change its last document";
  } else {
    why->clear();
  }
  return Status::OK();
}

// An input of fingerprint `now` that the store does not hold: the earlier
// version of it that it only grew from, if any (*grown_from), or an error
// naming what changed. Earlier versions are the records of its path, and
// those of any path whose first MiB it shares (a file renamed, or named
// from another directory by an older streamglove); only a record of its
// own path makes a change an error.
Status CheckChangedInput(const InputFile& input, const std::string& now,
                         const std::vector<InputRecord>& records, const InputRecord** grown_from) {
  *grown_from = nullptr;
  const std::string path = InputRecordPath(input.path);
  std::string why;
  for (const InputRecord& record : records) {
    const bool same_path = InputRecordPath(record.path) == path;
    if (!same_path && !SameHead(record.fingerprint, now)) continue;
    std::string reason;
    SG_RETURN_IF_ERROR(GrowthFrom(input, now, record, &reason));
    if (reason.empty()) {
      if (*grown_from == nullptr || record.bytes > (*grown_from)->bytes) *grown_from = &record;
    } else if (same_path && why.empty()) {
      why = std::move(reason);
    }
  }
  if (*grown_from != nullptr || why.empty()) return Status::OK();
  return Status::InvalidArgument(fmt::format(
      "{}: changed since it was ingested ({}): counts cannot be taken back out of a store; "
      "rebuild the store, or give --force to count this content as another input",
      input.path, why));
}

// The input that was partly ingested as `progress` and has grown since:
// *found its fingerprint, or left as it is.
Status FindRegrown(const std::vector<InputFile>& inputs,
                   const std::vector<std::string>& fingerprints, const IngestProgress& progress,
                   std::vector<std::string>::const_iterator* found) {
  uint64_t size = 0, now = 0;
  if (!FingerprintSize(progress.fingerprint, &size)) return Status::OK();
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (InputRecordPath(inputs[i].path) != InputRecordPath(progress.path) ||
        !FingerprintSize(fingerprints[i], &now) || now < size) {
      continue;
    }
    std::string prefix;
    SG_RETURN_IF_ERROR(FingerprintFilePrefix(inputs[i].path, size, &prefix));
    if (prefix == progress.fingerprint) {
      *found = fingerprints.begin() + static_cast<ptrdiff_t>(i);
      return Status::OK();
    }
  }
  return Status::OK();
}

// Why the partly ingested input of `progress` is not among `inputs`: what
// changed in the file of its path, if one is given.
Status DescribeUnfinished(const std::string& store_dir, const std::vector<InputFile>& inputs,
                          const std::vector<std::string>& fingerprints,
                          const IngestProgress& progress, std::string* message) {
  std::string changed;
  for (size_t i = 0; i < inputs.size() && changed.empty(); ++i) {
    if (InputRecordPath(inputs[i].path) != InputRecordPath(progress.path)) continue;
    InputRecord earlier;
    earlier.fingerprint = progress.fingerprint;
    earlier.ends_at_document_end = true;  // a regrown file was looked for already
    SG_RETURN_IF_ERROR(GrowthFrom(inputs[i], fingerprints[i], earlier, &changed));
    if (changed.empty()) changed = "its content differs";
  }
  const std::string way_forward =
      "add --abandon-partial to keep those counts, record it as an input of those bytes and "
      "count the inputs given";
  *message = changed.empty()
                 ? fmt::format(
                       "{}: the store holds a partly ingested input ({}, counted up to byte {}); "
                       "run ingest again with it to finish it, or {}",
                       store_dir, progress.path, progress.offset, way_forward)
                 : fmt::format(
                       "{}: {} changed since its ingest was interrupted ({}), and the store holds "
                       "the counts of its first {} bytes as they were: restore the file and run "
                       "again to finish it, or {}",
                       store_dir, progress.path, changed, progress.offset, way_forward);
  return Status::OK();
}

// Closes the partly ingested input of `progress` where its last batch left
// it, in one commit: its counts stay, an input record of the bytes read
// replaces the progress record (and the record of the earlier version it was
// growing from, whose tokens its own include). The record's path says so,
// so that neither the file's new content nor its old one is taken for it:
// the old content, given again, is "already ingested".
Status AbandonPartial(Store* store, const IngestProgress& progress, IngestStats* stats) {
  BatchMetadata metadata;
  InputRecord record;
  record.fingerprint = progress.fingerprint;
  record.path = fmt::format("{} (abandoned at byte {})", progress.path, progress.offset);
  record.bytes = progress.offset;
  record.tokens = progress.tokens;
  metadata.finished.push_back(std::move(record));
  if (!progress.replaces.empty()) metadata.replaced.push_back(progress.replaces);
  std::unique_ptr<Store::Batch> batch;
  SG_RETURN_IF_ERROR(store->NewBatch(1, &batch));
  SG_RETURN_IF_ERROR(store->CommitBatch(std::move(batch), metadata));
  stats->messages.push_back(
      fmt::format("abandoned the interrupted ingest of {} at byte {}: its counts stay in the store",
                  progress.path, progress.offset));
  return Status::OK();
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
  auto it = fingerprints.cend();  // the partly ingested input, when given
  if (resuming) {
    it = std::find(fingerprints.cbegin(), fingerprints.cend(), progress.fingerprint);
    if (it == fingerprints.cend()) {
      SG_RETURN_IF_ERROR(FindRegrown(inputs, fingerprints, progress, &it));
    }
    if (it == fingerprints.cend()) {
      if (!options.abandon_partial) {
        std::string message;
        SG_RETURN_IF_ERROR(DescribeUnfinished(store_dir, inputs, fingerprints, progress, &message));
        return Status::InvalidArgument(std::move(message));
      }
      SG_RETURN_IF_ERROR(AbandonPartial(store, progress, stats));
      SG_RETURN_IF_ERROR(store->ListInputs(&records));
      resuming = false;
    }
  }
  // The resumed input's index: found by its fingerprint, or as the file it
  // grew into (whose fingerprint is not progress's).
  size_t resumed_index = inputs.size();
  if (resuming) {
    if (options.force) {
      return Status::InvalidArgument(
          fmt::format("{}: an interrupted ingest of {} is pending: rerun without --force to finish "
                      "it (a forced rerun would count the inputs it already finished again)",
                      store_dir, progress.path));
    }
    resumed_index = static_cast<size_t>(it - fingerprints.cbegin());
    const InputFile& input = inputs[resumed_index];
    todo.push_back(input);
    todo_fingerprints.push_back(fingerprints[resumed_index]);
    taken.insert(fingerprints[resumed_index]);
    stats->resumed = true;
    stats->messages.push_back(fmt::format("resuming {} at byte {}", input.path, progress.offset));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!taken.insert(fingerprints[i]).second) {
      if (i != resumed_index) {
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
      SG_RETURN_IF_ERROR(CheckChangedInput(inputs[i], fingerprints[i], records, &grown_from));
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
