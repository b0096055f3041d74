// What an ingest reads and into what: the store configuration its options
// ask for, whether an existing store counts the same way, and which inputs
// are still to be read. Shared by the single-process ingest (ingest.cc) and
// the distributed one (src/cooccur/distributed/).
#ifndef STREAMGLOVE_COOCCUR_INGEST_SETUP_H_
#define STREAMGLOVE_COOCCUR_INGEST_SETUP_H_

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cooccur/subsampled_window.h"
#include "cooccur/window_counter.h"
#include "store/store.h"
#include "streamglove/corpus_reader.h"
#include "streamglove/ingest.h"
#include "streamglove/status.h"

namespace streamglove {

// Where a distributed ingest (src/cooccur/distributed/) keeps its transient files:
// STORE/distributed (its rounds' runs; nothing there outlives a commit).
inline constexpr char kDistributedIngestDir[] = "distributed";

// The windows a store counts: its WindowConfig and, for a store counted
// with subsampling before windowing, the expected windows it points to.
struct StoreWindow {
  StoreWindow(const StoreConfig& config, const std::vector<VocabEntry>& vocab);
  std::unique_ptr<SubsampledWindow> subsampled;  // null without StoreConfig::subsample
  WindowConfig config;
};

// What every ingest does first: refuses standard input (an ingest re-reads
// its inputs to resume) and sets *threads, the counting threads: the ones
// asked for, at most the cores this process may run on (more would only
// contend; stats->messages says so).
Status StartIngest(const std::vector<InputFile>& inputs, const IngestOptions& options,
                   IngestStats* stats, int* threads);

// The configuration a new store gets from these options.
StoreConfig IngestStoreConfig(const CorpusOptions& corpus, const IngestOptions& options);

// OK when a store configured as `have` counts as `want` asks; otherwise
// InvalidArgument naming the first option that differs. A store's counts
// mean something only if every ingest counts the same way.
Status CheckStoreCompatible(const std::string& dir, const StoreConfig& have,
                            const StoreConfig& want);

// What an addition's vocabulary pass on `threads` threads may use of
// options.memory_bytes beside the open store and the store's vocabulary
// `vocab` (40 bytes a word and the bytes of words longer than 15: about
// 400 MB at ten million words). InvalidArgument, naming the --memory that
// would do, when that leaves the pass less than its smallest plan
// (LeastVocabularyMemory).
Status AdditionPassBytes(const IngestOptions& options, const CorpusOptions& corpus, int threads,
                         const std::vector<VocabEntry>& vocab, size_t* bytes);

// What the vocabulary pass over a new store's inputs keeps: a fixed
// vocabulary's cut, or (growing) every word.
struct VocabCut {
  uint64_t min_count = 1;
  uint64_t max_vocab = 0;
};
VocabCut FirstVocabularyCut(const StoreConfig& config, const IngestOptions& options);

// The line a new growing store prints when the words below its cut hold at
// least config::kBelowCutNoticeShare of the tokens, or empty (a fixed store,
// or a cut that leaves out less).
// REQUIRES: `by_rank` is the vocabulary pass's words, counts descending.
std::string BelowCutNotice(const StoreConfig& config, const std::vector<VocabEntry>& by_rank);

// Initializes a new store with `vocab` (from the vocabulary pass or a file,
// in rank order). A fixed vocabulary keeps its counts (and so its ranks); a
// growing store counts occurrences in the batches that count the pairs, so
// that counts and pairs always agree. Adds BelowCutNotice's line, if any, to
// stats->messages.
Status InitializeStore(const StoreConfig& config, std::vector<VocabEntry> vocab, Store* store,
                       IngestStats* stats);

// The words of a vocabulary pass in rank order, read as often as needed:
// calls f(word, count) for each, stopping at the first error.
using WordVisitor = std::function<Status(std::string_view word, uint64_t count)>;
using WordSource = std::function<Status(const WordVisitor& f)>;
// A vocabulary file's words, streamed (never held whole).
WordSource VocabFileWords(const std::string& path);
// Its words, from memory.
WordSource VocabWords(const std::vector<VocabEntry>* words);

// OK when counting with `known_words` (`known_bytes` of them out of line:
// VocabIndex::OutOfLineBytes) and the words
// of `words` fits options.memory_bytes (BatchCounter::CheckVocabularyFits).
Status CheckNewWordsFit(const WordSource& words, uint64_t known_words, uint64_t known_bytes,
                        const IngestOptions& options, const CorpusOptions& corpus, int threads);

// An existing store and `seen`, the words of the inputs it is about to read:
// a growing store adds those it does not hold (in `seen`'s order), after
// checking that counting with them fits the memory budget; a fixed one
// reports, in stats->messages, the tokens and words it will drop. With
// `counts_by_id`: `seen`'s counts by store id afterwards (0 for a store word
// `seen` does not hold; a distributed job weighs its row ranges by them).
Status AddInputWords(const WordSource& seen, const IngestOptions& options,
                     const CorpusOptions& corpus, int threads, Store* store, IngestStats* stats,
                     std::vector<uint64_t>* counts_by_id = nullptr);

// The inputs an ingest reads, in order: a partly ingested one first (to
// finish it from its recorded position), then the others the store does not
// hold yet (all of them with --force), each content once. An input whose
// path was ingested before with other content must only have grown (bytes
// appended after a document end): it is read from where its earlier record
// ends; any other change is refused.
struct InputSelection {
  std::vector<InputFile> inputs;
  std::vector<std::string> fingerprints;  // of `inputs`, hex
  IngestProgress progress;                // of the partly ingested input, when resuming
  bool resuming = false;
  // Inputs that grew: (index in `inputs`, where to start: offset, tokens so
  // far, the record it supersedes).
  std::vector<std::pair<size_t, IngestProgress>> grown;
};

// Fingerprints `inputs` and selects what to read into `store` (which may be
// uninitialized: then every distinct input). Messages for skipped inputs go
// to stats->messages.
Status SelectInputs(const std::string& store_dir, const std::vector<InputFile>& inputs,
                    const IngestOptions& options, Store* store, InputSelection* selected,
                    IngestStats* stats);

}  // namespace streamglove

#endif  // STREAMGLOVE_COOCCUR_INGEST_SETUP_H_
