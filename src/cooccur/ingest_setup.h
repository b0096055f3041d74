// What an ingest reads and into what: the store configuration its options
// ask for, whether an existing store counts the same way, and which inputs
// are still to be read. Shared by the single-process ingest (ingest.cc) and
// the distributed one (src/cooccur_mpi/).
#ifndef STREAMGLOVE_COOCCUR_INGEST_SETUP_H_
#define STREAMGLOVE_COOCCUR_INGEST_SETUP_H_

#include <memory>
#include <string>
#include <vector>

#include "cooccur/subsampled_window.h"
#include "cooccur/window_counter.h"
#include "store/store.h"
#include "streamglove/corpus_reader.h"
#include "streamglove/ingest.h"
#include "streamglove/status.h"

namespace streamglove {

// Where a distributed ingest (src/cooccur_mpi/) keeps its transient files:
// STORE/distributed (its rounds' runs; nothing there outlives a commit).
inline constexpr char kDistributedIngestDir[] = "distributed";

// The windows a store counts: its WindowConfig and, for a store counted
// with subsampling before windowing, the expected windows it points to.
struct StoreWindow {
  StoreWindow(const StoreConfig& config, const std::vector<VocabEntry>& vocab);
  std::unique_ptr<SubsampledWindow> subsampled;  // null without StoreConfig::subsample
  WindowConfig config;
};

// The configuration a new store gets from these options.
StoreConfig IngestStoreConfig(const CorpusOptions& corpus, const IngestOptions& options);

// OK when a store configured as `have` counts as `want` asks; otherwise
// InvalidArgument naming the first option that differs. A store's counts
// mean something only if every ingest counts the same way.
Status CheckStoreCompatible(const std::string& dir, const StoreConfig& have,
                            const StoreConfig& want);

// The inputs an ingest reads, in order: a partly ingested one first (to
// finish it from its recorded position), then the others the store does not
// hold yet (all of them with --force), each content once.
struct InputSelection {
  std::vector<InputFile> inputs;
  std::vector<std::string> fingerprints;  // of `inputs`, hex
  IngestProgress progress;                // of the partly ingested input, when resuming
  bool resuming = false;
};

// Fingerprints `inputs` and selects what to read into `store` (which may be
// uninitialized: then every distinct input). Messages for skipped inputs go
// to stats->messages.
Status SelectInputs(const std::string& store_dir, const std::vector<InputFile>& inputs,
                    const IngestOptions& options, Store* store, InputSelection* selected,
                    IngestStats* stats);

}  // namespace streamglove

#endif  // STREAMGLOVE_COOCCUR_INGEST_SETUP_H_
