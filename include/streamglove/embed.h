// Corpus to vectors in one step, as `streamglove embed` and the Python
// module's embed() run it: count the inputs into a store made for the
// objective (kept, so that a later call with more inputs adds to it and a
// rerun after an interruption resumes, as Ingest does), then train; a budget
// covers both stages.
//
// Thread-safety: as Ingest and Train (one call per store at a time).
#ifndef STREAMGLOVE_EMBED_H_
#define STREAMGLOVE_EMBED_H_

#include <functional>
#include <string>
#include <vector>

#include "streamglove/corpus_reader.h"
#include "streamglove/ingest.h"
#include "streamglove/options.h"
#include "streamglove/status.h"
#include "streamglove/train.h"

namespace streamglove {

struct EmbedSettings {
  IngestOptions ingest;
  TrainOptions train;
};

// Skip-gram: word2vec's windows, formed after its subsampling (window 5,
// t = 1e-4: the store of the best skip-gram recipe measured at fastText's
// wall time, docs/sgns.md), and without a budget fastText's dim 100 and 5
// epochs. GloVe: Stanford's demo windows (15, 1/d weighting, a growing
// vocabulary cut at 5) and its dim 50, 15 epochs, x_max 10 (the glove-demo
// preset). Both: min-count 5; everything else the options' defaults.
EmbedSettings EmbedSettingsFor(Objective objective);

// The flags of ingest that make a store of `options`' kind, for messages:
// "--window 5 --subsample 0.0001", "--window 15 --min-count 5".
std::string EmbedStoreFlags(const IngestOptions& options);

struct EmbedOptions {
  // The stages' options: EmbedSettingsFor's, with the caller's changes
  // (threads, memory, seed, dim...). REQUIRES: validated.
  EmbedSettings settings;
  // Wall time for both stages (0: none; train.epochs then holds). Training
  // gets what counting leaves; with less than a tenth of it (or 5 s) left,
  // Embed stops before training and says so.
  double budget_seconds = 0;
  // Called as each stage starts (each may be empty): before counting; then
  // after it, with its stats, before training (resumed: from the checkpoint
  // of an interrupted call on the same store; budget_left: 0 without a
  // budget).
  std::function<void()> on_counting;
  std::function<void(const IngestStats& ingested, bool resumed, double budget_left)> on_training;
};

struct EmbedStats {
  IngestStats ingest;
  TrainStats train;
  bool resumed = false;  // training continued an interrupted call's checkpoint
  double ingest_seconds = 0;
  double seconds = 0;  // both stages
};

// Counts `inputs` into `store` and trains `output` from it. Training resumes
// from OUTPUT.checkpoint when an earlier call was stopped during training
// and the store has not changed since. A store made with other settings is
// refused with a message that says what to do.
Status Embed(const std::string& store, const std::vector<InputFile>& inputs,
             const CorpusOptions& corpus, const std::string& output, EmbedOptions options,
             EmbedStats* stats);

}  // namespace streamglove

#endif  // STREAMGLOVE_EMBED_H_
