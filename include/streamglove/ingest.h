// Ingestion: corpus shards -> co-occurrence counts in a store on disk.
//
// Counting follows Stanford GloVe's cooccur's windows (see
// src/cooccur/window_counter.h) in exact fixed-point arithmetic, so a store's
// counts do not depend on thread count, shard order, batch boundaries or
// interruptions. By default a store's vocabulary grows: every token is
// counted, and an ingest adds the words its inputs bring, so a store built
// by several ingests equals one ingest of all their inputs. A fixed
// vocabulary (chosen when the store is made) drops the tokens outside it
// before windowing, as Stanford's cooccur does. Work is committed in batches: each batch's counts
// and the reading position reach the store in one atomic step, so after a crash (kill -9 included)
// the same command continues from the last batch. Inputs already in the store are recognised by
// content and skipped.
#ifndef STREAMGLOVE_INGEST_H_
#define STREAMGLOVE_INGEST_H_

#include <cstdint>
#include <string>
#include <vector>

#include "streamglove/corpus_reader.h"
#include "streamglove/options.h"
#include "streamglove/status.h"

namespace streamglove {

struct IngestOptions {
  // Context window W: pairs up to W in-vocabulary words apart. At most 20.
  // Default: 10 (Stanford GloVe's default; its demo uses 15).
  uint32_t window = 10;
  // Count both (left, right) and (right, left); false counts left context
  // only, as GloVe's -symmetric 0. Default: true.
  bool symmetric = true;
  // What a pair at distance d adds. Default: kHarmonic (1/d, Stanford
  // GloVe's); kLinear is word2vec's (see options.h).
  DistanceWeighting weighting = DistanceWeighting::kHarmonic;
  // word2vec's subsampling before windowing, in expectation: each occurrence
  // of word w is dropped with probability 1 - p(w), p(w) = min(1, sqrt(t / f)
  // + t / f) with f its share of the vocabulary's tokens, before windows are
  // formed, so windows reach past the dropped words; every pair adds its
  // expected weight over all such draws (src/cooccur/subsampled_window.h).
  // For `train --objective sgns` with word2vec's windows (it then does not
  // subsample again). t in (0, 1); 0: none. Default: 0.
  double subsample = 0;

  // For a new store, the vocabulary cut: words seen at least min_count
  // times (default: 5), at most max_vocab of them (0: no limit; default 0).
  // A growing store records it as its readers' default cut (training and
  // dumps may ask for another); a fixed vocabulary is cut to it when made.
  // Ignored for an existing store, which says so (a notice) when
  // `cut_given` and the cut differs from its own.
  uint64_t min_count = 5;
  uint64_t max_vocab = 0;
  bool cut_given = false;  // min_count or max_vocab chosen, not defaults

  // For a new store: fix the vocabulary at what the first ingest's
  // vocabulary pass keeps (Stanford GloVe's exact counts; later inputs' words
  // outside it are dropped, and reported). Implied by `subsample` and
  // `vocab_file`. Default: false (the vocabulary grows).
  bool fixed_vocabulary = false;
  // For a new store: a fixed vocabulary from this file instead of a
  // vocabulary pass. Default: empty.
  std::string vocab_file;

  // Worker threads, 0 for one per core. More than the cores this process may
  // run on are not used: each worker owns a dense region and a buffer, and
  // workers sharing a core would only add merge work and page faults
  // (docs/architecture.md gives the figures). Default: 0.
  int threads = 0;
  // Peak memory of the whole process, RocksDB included. Default: 1 GiB.
  size_t memory_bytes = size_t{1} << 30;
  // Ingest inputs the store already holds again (their counts are added
  // twice). Default: false.
  bool force = false;
  // When the store holds a partly ingested input that this run cannot
  // finish (the file changed or is not given): keep the counts of what was
  // committed of it, record it as an input of those bytes, and count the
  // inputs given. Without it such a run is refused, naming what changed.
  // Default: false.
  bool abandon_partial = false;
  bool progress = true;

  // Advanced: decompressed bytes per committed batch, the unit of work a
  // crash can lose. Larger batches commit less often. Default: 1 GiB.
  uint64_t batch_bytes = uint64_t{1} << 30;
  // Advanced (tests, tuning): caps on each worker's dense region and pair
  // buffer, below what the memory budget gives them; 0 leaves the budget's
  // (and the built-in cache-friendly caps') values. Default: 0.
  size_t max_dense_bytes = 0;
  size_t max_buffer_bytes = 0;
};

struct IngestStats {
  uint64_t inputs_ingested = 0;
  uint64_t inputs_skipped = 0;  // already in the store
  bool resumed = false;         // continued a partly ingested input
  uint64_t tokens = 0;
  uint64_t increments = 0;  // pair increments counted
  uint64_t batches = 0;
  uint64_t bytes_read = 0;       // as stored (compressed)
  uint64_t vocab_size = 0;       // the store's words after the ingest
  uint64_t new_words = 0;        // words this ingest added to a growing store
  uint64_t unknown_tokens = 0;   // tokens outside a fixed vocabulary (not counted)...
  uint64_t unknown_words = 0;    // ...and their distinct words
  uint64_t inputs_grown = 0;     // inputs continued where an earlier ingest ended
  bool settings_differ = false;  // refused: the store counts with other settings (the error says)
  bool vocabulary_built = false;
  double vocab_seconds = 0;
  double count_seconds = 0;   // reading, tokenizing, counting (overlapped)
  double commit_seconds = 0;  // merging and writing into the store
  uint64_t spilled_runs = 0;
  uint64_t bad_records = 0;      // skipped by the counting pass (CorpusOptions::skip_bad_records)
  std::string first_bad_record;  // "file: byte N: what" of the first, or empty
  int threads = 0;
  std::vector<std::string> messages;  // one line each: skipped inputs, resumption
};

Status ValidateIngestOptions(const IngestOptions& options);

// Ingests `inputs` into the store at `store_dir`, creating it if needed.
// REQUIRES: validated options; inputs are regular files.
Status Ingest(const std::string& store_dir, const std::vector<InputFile>& inputs,
              const CorpusOptions& corpus, const IngestOptions& options, IngestStats* stats);

}  // namespace streamglove

#endif  // STREAMGLOVE_INGEST_H_
