// The ingest command's engine: for each batch of chunks, the counting
// (cooccur/batch_counter.h), then one atomic commit of the batch's counts
// and reading position.

#include "streamglove/ingest.h"

#include <algorithm>
#include <chrono>
#include <filesystem>

#include <fmt/format.h>

#include "cooccur/batch_counter.h"
#include "cooccur/fixed_point.h"
#include "cooccur/ingest_setup.h"
#include "cooccur/subsampled_window.h"
#include "cooccur/window_counter.h"
#include "store/store.h"
#include "streamglove/interrupt.h"
#include "streamglove/units.h"
#include "streamglove/vocabulary.h"
#include "util/config.h"
#include "util/duration.h"
#include "util/threads.h"
#include "vocab/subsampling.h"
#include "vocab/vocab_index.h"
#include "vocab/word_counts.h"

namespace streamglove {

namespace {

using Clock = std::chrono::steady_clock;

// The vocabulary pass's output in the store's directory (written to
// "vocab.building.tmp-<pid>" first; its spill runs go beside it).
constexpr char kVocabBuildingFile[] = "vocab.building";

// Removes what a killed ingest left in the store's directory: a distributed
// job's transient files, and a vocabulary pass's file and spill runs.
// REQUIRES: the store's lock is held, so no live process uses them.
void RemoveLeftovers(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<fs::path> left{fs::path(dir) / kDistributedIngestDir};
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind(kVocabBuildingFile, 0) == 0 || name.rfind(kVocabTempPrefix, 0) == 0)
      left.push_back(it->path());
  }
  for (const fs::path& path : left) fs::remove_all(path, ec);
}

// A vocabulary pass over `inputs`, cut to min_count and max_vocab, into
// the file `path` (rank order).
// `memory_bytes`: what the pass may use.
Status VocabularyPass(const std::string& dir, const std::vector<InputFile>& inputs,
                      const CorpusOptions& corpus, const IngestOptions& options, int threads,
                      size_t memory_bytes, uint64_t min_count, uint64_t max_vocab,
                      const std::string& path) {
  VocabOptions v;
  v.min_count = min_count;
  v.max_vocab = max_vocab;
  v.threads = threads;
  v.memory_bytes = memory_bytes;
  v.temp_dir = dir;
  v.progress = options.progress;
  VocabStats vs;
  return BuildVocabulary(inputs, corpus, v, path, &vs);
}

// A new store: its vocabulary from the file or a vocabulary pass.
// *head_words: counting's head (BatchCounter::HeadWords) by the counts the
// vocabulary came with, which a growing store does not keep.
Status CreateStore(const std::string& dir, const std::vector<InputFile>& inputs,
                   const CorpusOptions& corpus, const IngestOptions& options, int threads,
                   Store* store, uint32_t* head_words, IngestStats* stats) {
  const StoreConfig config = IngestStoreConfig(corpus, options);
  std::vector<VocabEntry> vocab;
  if (!options.vocab_file.empty()) {
    SG_RETURN_IF_ERROR(ReadVocabFile(options.vocab_file, &vocab));
  } else {
    const VocabCut cut = FirstVocabularyCut(config, options);
    const std::string path = dir + "/" + kVocabBuildingFile;
    // The new store holds nothing yet: the pass has the whole budget.
    Status s = VocabularyPass(dir, inputs, corpus, options, threads, options.memory_bytes,
                              cut.min_count, cut.max_vocab, path);
    // A growing store holds every word while counting: refused before it is
    // loaded when it cannot.
    if (s.ok() && !config.fixed_vocabulary) {
      s = CheckNewWordsFit(VocabFileWords(path), /*known_words=*/0, /*known_bytes=*/0, options,
                           corpus, threads);
    }
    if (s.ok()) s = ReadVocabFile(path, &vocab);
    std::error_code ignored;  // a leftover is replaced by the next run's
    std::filesystem::remove(path, ignored);
    SG_RETURN_IF_ERROR(s);
    stats->vocabulary_built = true;
  }
  *head_words = BatchCounter::HeadWords(vocab);
  return InitializeStore(config, std::move(vocab), store, stats);
}

// How Store::SetWordsHeld names the selected inputs: each one's content
// fingerprint with the reading options that decide its tokens beside the
// store's own (its format, the record limit and what becomes of a record
// over it), so a rerun that reads an input differently reads it for words.
std::vector<std::string> WordsHeldKeys(const InputSelection& selected,
                                       const CorpusOptions& corpus) {
  std::vector<std::string> keys;
  for (size_t j = 0; j < selected.inputs.size(); ++j) {
    keys.push_back(fmt::format("{} {} {} {}", selected.fingerprints[j],
                               InputFormatName(selected.inputs[j].format), corpus.max_record_bytes,
                               corpus.skip_bad_records ? 1 : 0));
  }
  return keys;
}

// The inputs an addition reads for their words: not one whose every word a
// growing store holds already (read by an ingest that was interrupted
// before counting it). A store without that record (made before it, a
// fixed vocabulary, a distributed ingest's) holds the words of the input
// being resumed, unless it has grown since: they went into the store, or
// its report, before its counting began.
// `keys`: WordsHeldKeys(selected).
Status InputsToReadForWords(const InputSelection& selected, const std::vector<std::string>& keys,
                            Store* store, std::vector<InputFile>* unseen, IngestStats* stats) {
  std::vector<std::string> held;
  bool recorded = false;
  if (!store->config().fixed_vocabulary) SG_RETURN_IF_ERROR(store->GetWordsHeld(&held, &recorded));
  std::sort(held.begin(), held.end());
  const bool resumed =
      !recorded && selected.resuming && selected.fingerprints[0] == selected.progress.fingerprint;
  size_t skipped = 0;
  for (size_t j = resumed ? 1 : 0; j < selected.inputs.size(); ++j) {
    if (std::binary_search(held.begin(), held.end(), keys[j])) {
      if (!selected.resuming || j > 0) ++skipped;  // a resumed input's words are no news
    } else {
      unseen->push_back(selected.inputs[j]);
    }
  }
  if (skipped > 0) {
    stats->messages.push_back(fmt::format(
        "the vocabulary holds every word of {} of these inputs already (an earlier ingest read "
        "them): they are not read for words again",
        skipped));
  }
  return Status::OK();
}

Status PrepareStore(const std::string& dir, const std::vector<InputFile>& inputs,
                    const InputSelection& selected, const CorpusOptions& corpus,
                    const IngestOptions& options, int threads, Store* store, uint32_t* head_words,
                    IngestStats* stats) {
  const auto start = Clock::now();
  // A growing store records which inputs' words it holds, so that resuming
  // an interrupted ingest does not read them for words again.
  const std::vector<std::string> keys = WordsHeldKeys(selected, corpus);
  if (!store->initialized()) {
    SG_RETURN_IF_ERROR(CreateStore(dir, selected.inputs.empty() ? inputs : selected.inputs, corpus,
                                   options, threads, store, head_words, stats));
    if (!store->config().fixed_vocabulary) SG_RETURN_IF_ERROR(store->SetWordsHeld(keys));
    stats->vocab_seconds = SecondsSince(start);
    return Status::OK();
  }
  if (Status s = CheckStoreCompatible(dir, store->config(), IngestStoreConfig(corpus, options));
      !s.ok()) {
    stats->settings_differ = true;
    return s;
  }
  if (!options.vocab_file.empty()) {
    stats->messages.push_back(
        fmt::format("--vocab {} ignored: the store keeps its own vocabulary", options.vocab_file));
  }
  const StoreConfig& config = store->config();
  if (options.cut_given && (config.fixed_vocabulary || options.min_count != config.min_count ||
                            options.max_vocab != config.max_vocab)) {
    stats->messages.push_back(fmt::format(
        "--min-count {} --max-vocab {} ignored: the store keeps the vocabulary cut it was made "
        "with ({}); train, dump and stats take --min-count and --max-vocab for another",
        options.min_count, options.max_vocab,
        config.fixed_vocabulary
            ? "a fixed vocabulary"
            : fmt::format("--min-count {} --max-vocab {}", config.min_count, config.max_vocab)));
  }
  std::vector<InputFile> unseen;
  SG_RETURN_IF_ERROR(InputsToReadForWords(selected, keys, store, &unseen, stats));
  if (!unseen.empty()) {
    size_t pass_bytes = 0;
    SG_RETURN_IF_ERROR(AdditionPassBytes(options, corpus, threads, store->vocab(), &pass_bytes));
    const std::string path = dir + "/" + kVocabBuildingFile;
    Status s = VocabularyPass(dir, unseen, corpus, options, threads, pass_bytes, 1, 0, path);
    if (s.ok()) s = AddInputWords(VocabFileWords(path), options, corpus, threads, store, stats);
    std::error_code ignored;
    std::filesystem::remove(path, ignored);
    SG_RETURN_IF_ERROR(s);
    if (!store->config().fixed_vocabulary) SG_RETURN_IF_ERROR(store->SetWordsHeld(keys));
  }
  *head_words = BatchCounter::HeadWords(store->vocab());
  stats->vocab_seconds = SecondsSince(start);
  return Status::OK();
}

// Opens the store (creating it if new) into *store, removes what a killed
// run left, selects the inputs to read, in order (a partly ingested one
// first), and gives a new store its vocabulary or an existing one the new
// words.
Status OpenAndPrepareStore(const std::string& dir, const std::vector<InputFile>& inputs,
                           const CorpusOptions& corpus, const IngestOptions& options, int threads,
                           std::unique_ptr<Store>* store, InputSelection* selected,
                           uint32_t* head_words, IngestStats* stats) {
  SG_RETURN_IF_ERROR(Store::Open(dir, options.memory_bytes, /*create=*/true, store));
  RemoveLeftovers(dir);
  SG_RETURN_IF_ERROR(SelectInputs(dir, inputs, options, store->get(), selected, stats));
  return PrepareStore(dir, inputs, *selected, corpus, options, threads, store->get(), head_words,
                      stats);
}

}  // namespace

Status Ingest(const std::string& store_dir, const std::vector<InputFile>& inputs,
              const CorpusOptions& corpus_options, const IngestOptions& options,
              IngestStats* stats) {
  *stats = IngestStats();
  int threads = 0;
  SG_RETURN_IF_ERROR(StartIngest(inputs, options, stats, &threads));

  // A store this call creates is removed again if it never gets a
  // vocabulary (an input refused, bad input in the vocabulary pass, a bad
  // --vocab file): it holds nothing.
  std::error_code exists_ec;
  const bool created = !std::filesystem::exists(store_dir, exists_ec);
  std::unique_ptr<Store> store;
  InputSelection selected;
  uint32_t head_words = 0;
  if (Status s = OpenAndPrepareStore(store_dir, inputs, corpus_options, options, threads, &store,
                                     &selected, &head_words, stats);
      !s.ok()) {
    // Only when opened: a store this call could not lock is another's.
    if (created && store != nullptr && !store->initialized()) {
      store.reset();
      std::error_code ec;
      std::filesystem::remove_all(store_dir, ec);
    }
    return s;
  }
  const std::vector<InputFile>& todo = selected.inputs;
  stats->vocab_size = store->vocab().size();
  if (todo.empty()) return Status::OK();

  const VocabIndex vocab(store->vocab());
  const StoreWindow window(store->config(), store->vocab());

  const std::string runs_dir = store_dir + "/runs";
  std::error_code ec;
  std::filesystem::remove_all(runs_dir, ec);
  if (!std::filesystem::create_directories(runs_dir, ec) && ec) {
    return Status::IOError(fmt::format("{}: {}", runs_dir, ec.message()));
  }
  std::unique_ptr<BatchCounter> counter;
  SG_RETURN_IF_ERROR(BatchCounter::Create(todo, selected.fingerprints, &vocab, head_words,
                                          !store->config().fixed_vocabulary, window.config,
                                          corpus_options, options, threads, runs_dir, &counter));
  if (selected.resuming) counter->StartInputAt(0, selected.progress, selected.progress.replaces);
  for (const auto& [input, from] : selected.grown)
    counter->StartInputAt(input, from, from.replaces);
  stats->inputs_grown = selected.grown.size();

  bool corpus_done = false;
  while (!corpus_done) {
    const auto batch_start = Clock::now();
    BatchCounter::Result batch_result;
    if (Status s = counter->CountBatch(options.batch_bytes, /*whole_inputs=*/false, &batch_result);
        !s.ok()) {
      // The next run reads every input for words again: this one may have
      // met words the store was said to hold (an input that changed where
      // its fingerprint does not look).
      if (!store->config().fixed_vocabulary) (void)store->SetWordsHeld({});
      return s;
    }
    corpus_done = batch_result.corpus_done;
    stats->count_seconds += SecondsSince(batch_start);
    if (!batch_result.any && Interrupted()) {
      counter->Finish(stats);
      return InterruptedStatus(fmt::format(
          "{} batches committed; run the same command again to continue", stats->batches));
    }
    if (!batch_result.any) break;

    // Commit: the dense region, every buffer and every spilled run, merged
    // by key range on every thread.
    const auto commit_start = Clock::now();
    BatchCounts counts;
    SG_RETURN_IF_ERROR(counter->FinishBatch(&counts));
    const std::vector<uint64_t> starts = counter->SplitRanges(counts);
    BatchMetadata metadata;
    metadata.progress = batch_result.ends_input ? nullptr : &batch_result.next;
    metadata.finished = std::move(batch_result.finished);
    metadata.replaced = std::move(batch_result.replaced);
    counter->TakeWordCounts(&metadata.word_counts);
    std::unique_ptr<Store::Batch> batch;
    SG_RETURN_IF_ERROR(store->NewBatch(starts.size(), &batch));
    SG_RETURN_IF_ERROR(counter->Merge(&counts, starts, batch.get(), &metadata));
    SG_RETURN_IF_ERROR(store->CommitBatch(std::move(batch), metadata));
    counter->Clear(counts);
    stats->inputs_ingested += metadata.finished.size();
    ++stats->batches;
    stats->commit_seconds += SecondsSince(commit_start);
    if (Interrupted() && !corpus_done) {
      counter->Finish(stats);
      std::filesystem::remove_all(runs_dir, ec);
      const std::string last =
          batch_result.ends_input
              ? fmt::format("the last to the end of {}", metadata.finished.back().path)
              : fmt::format("the last up to byte {} of {}", batch_result.next.offset,
                            batch_result.next.path);
      return InterruptedStatus(
          fmt::format("{} batches committed, {}; run the same command again to continue",
                      stats->batches, last));
    }
  }
  counter->Finish(stats);
  stats->tokens = counter->tokens();
  stats->increments = counter->increments();
  stats->bytes_read = counter->bytes_read();
  std::filesystem::remove_all(runs_dir, ec);
  return Status::OK();
}

}  // namespace streamglove
