// BatchCounter: the counting half of an ingest, one batch at a time.
//
// Inputs are read in order through a bounded oneTBB pipeline (serial read ->
// parallel tokenize and count into per-worker accumulators -> serial
// in-order stitch of the windows that cross chunk edges). A batch ends after
// about `max_bytes` of text; its counts (the workers' shared dense region, sorted buffers,
// spilled runs) are then merged in key order into a Store::Batch, whose
// ranges the caller chooses: the single-process ingest commits them to its
// store, a rank of a distributed ingest sends each range to its owner.
//
// Memory: PlanIngestMemory's share of options.memory_bytes; the counting buffers
// are mapped whole by Create() (their pages fill as they are used), so a
// machine, or ulimit -v, that gives less fails there, naming what did not fit.
//
// Thread-safety: one calling thread; the work runs on the counter's own
// task arena of `threads`.
#ifndef STREAMGLOVE_COOCCUR_BATCH_COUNTER_H_
#define STREAMGLOVE_COOCCUR_BATCH_COUNTER_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <tbb/task_arena.h>

#include "cooccur/batch_merge.h"
#include "cooccur/dense_region.h"
#include "cooccur/pair_accumulator.h"
#include "cooccur/pair_run.h"
#include "cooccur/window_counter.h"
#include "corpus/chunk_tokenizer.h"
#include "store/store.h"
#include "streamglove/ingest.h"
#include "streamglove/vocab_file.h"
#include "util/progress.h"
#include "vocab/vocab_index.h"

namespace streamglove {

class BatchCounter {
 public:
  // What one CountBatch() read.
  struct Result {
    bool any = false;          // a chunk was counted
    bool corpus_done = false;  // every input was read to its end
    // The position after the batch, for the store's progress record (when
    // the batch did not end at an input's end).
    bool ends_input = false;
    IngestProgress next;
    std::vector<InputRecord> finished;  // inputs read to their end in this batch
    std::vector<std::string> replaced;  // records they supersede (StartInputAt)
  };

  // `fingerprints` name `inputs` in the records. Ids at or above
  // `head_words` are counting's tail (PairAccumulator; HeadWords() chooses
  // them; vocab->size(): none). `runs_dir`: an empty
  // directory for spilled runs (removed by the caller). `complete_vocab`:
  // `vocab` holds every word of the inputs (a growing store's, after the
  // vocabulary pass over them), so a token outside it means an input changed
  // while it was read, an error. REQUIRES: options validated; `vocab` and
  // `window` outlive the counter.
  static Status Create(const std::vector<InputFile>& inputs, std::vector<std::string> fingerprints,
                       const VocabIndex* vocab, uint32_t head_words, bool complete_vocab,
                       const WindowConfig& window, const CorpusOptions& corpus,
                       const IngestOptions& options, int threads, const std::string& runs_dir,
                       std::unique_ptr<BatchCounter>* counter);

  // The number of words in `vocab` counted at least config::kHeadMinCount
  // times: with ids that are ranks of those counts (a store's ids are ranks
  // of its first counts, and later words follow), about the ids that lead
  // it. All of them when nothing is counted yet.
  static uint32_t HeadWords(const std::vector<VocabEntry>& vocab);
  ~BatchCounter();

  // OK when counting with a vocabulary of `words` words (`word_bytes` of them
  // out of line: VocabIndex::OutOfLineBytes) fits options.memory_bytes; otherwise Create()'s error.
  // For refusing a vocabulary before it is loaded and stored: the same estimate as Create()'s.
  static Status CheckVocabularyFits(const IngestOptions& options, const CorpusOptions& corpus,
                                    int threads, uint64_t words, uint64_t word_bytes);

  // Starts inputs[input] where an earlier run stopped: `from` is its
  // progress record (only inputs[0] may continue inside a document: its
  // context is restored) or, for a file that grew since it was ingested,
  // the end of what was ingested, whose input record `replaces` names; the
  // input's finished record then supersedes it.
  void StartInputAt(size_t input, const IngestProgress& from, const std::string& replaces);

  // Counts chunks until `max_bytes` of text are read (with `whole_inputs`,
  // until the end of the input where that happens), the end of the inputs,
  // an interrupt (Interrupted()) or an error.
  Status CountBatch(uint64_t max_bytes, bool whole_inputs, Result* result);

  // Ends the batch: its counts, valid until Clear().
  Status FinishBatch(BatchCounts* counts);
  // Key ranges of about equal work for the counter's threads (SplitKeySpace).
  std::vector<uint64_t> SplitRanges(const BatchCounts& counts) const;
  // Merges the batch into `batch`'s ranges starting at `starts`, on the
  // counter's threads (MergeBatch); with `metadata`, the batch writes it
  // (Store::Batch::WriteMetadata) on those threads too.
  Status Merge(BatchCounts* counts, const std::vector<uint64_t>& starts, Store::Batch* batch,
               const BatchMetadata* metadata);
  // After the batch went where it goes: removes its runs, empties the
  // accumulators for the next batch.
  void Clear(const BatchCounts& counts);

  // Ends the batch as sorted run files instead: the spilled runs and runs of
  // what the workers hold in memory (one per key range of SplitRanges),
  // merged down to at most `max_runs`, and empties the accumulators for the
  // next batch. The runs are the caller's to read and remove, also after an
  // error.
  Status FinishBatchAsRuns(size_t max_runs, std::vector<PairRun>* runs);

  // The occurrences of each word id counted since the last call (every
  // in-vocabulary token of the batch once), and resets them.
  void TakeWordCounts(std::vector<uint64_t>* counts);

  // Totals over the batches so far.
  uint64_t tokens() const { return tokens_; }
  uint64_t increments() const { return increments_; }
  uint64_t bytes_read() const;  // as stored (compressed)
  // Ends the progress line; adds spill and bad-record figures to *stats.
  void Finish(IngestStats* stats);

 private:
  struct Worker;
  struct ChunkWork;
  // FinishBatch with its spilled runs merged down to at most `max_runs`.
  Status FinishBatch(BatchCounts* counts, size_t max_runs);
  BatchCounter(const std::vector<InputFile>& inputs, std::vector<std::string> fingerprints,
               bool complete_vocab, const WindowConfig& window, bool progress, int threads,
               const std::string& runs_dir);

  const std::vector<std::string> fingerprints_;
  // The inputs' paths as input records name them: absolute, so that a file
  // that grows is recognised from any working directory.
  const std::vector<std::string> record_paths_;
  const bool complete_vocab_;
  const WindowConfig window_;
  const int threads_;
  size_t chunks_in_flight_ = 0;
  size_t merge_fan_in_ = 0;
  BatchRuns runs_;
  std::unique_ptr<ChunkReader> reader_;
  std::unique_ptr<DenseRegion> dense_;  // the workers' shared region
  std::vector<std::unique_ptr<Worker>> workers_;
  std::unique_ptr<PairAccumulator> stitch_pairs_;
  std::unique_ptr<ChunkStitcher> stitcher_;
  std::vector<std::unique_ptr<ChunkWork>> works_;
  std::vector<uint64_t> input_tokens_;  // touched by the serial stitch stage only
  std::vector<std::string> replaces_;   // by input: the record a grown input supersedes
  std::atomic<uint64_t> tokens_{0}, increments_{0};
  ProgressMeter meter_;
  tbb::task_arena arena_;
};

}  // namespace streamglove

#endif  // STREAMGLOVE_COOCCUR_BATCH_COUNTER_H_
