#include "cooccur/batch_counter.h"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>
#include <tbb/concurrent_queue.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_pipeline.h>
#include <tbb/task_group.h>

#include "cooccur/cooccur_tuning.h"
#include "cooccur/dense_region.h"
#include "corpus/fingerprint.h"
#include "store/store_tuning.h"
#include "streamglove/interrupt.h"
#include "streamglove/units.h"
#include "util/config.h"
#include "util/first_error.h"

namespace streamglove {

namespace {

struct IngestMemoryPlan {
  size_t chunk_bytes;
  size_t chunks_in_flight;
  size_t dense_bytes;          // the workers' shared region, their lists included
  uint64_t dense_max_product;  // of that region, from dense_bytes
  size_t buffer_records;       // per counting worker: its head's buffer...
  size_t tail_records;         // ...and its tail's (0: no tail)
  size_t stitch_records;
  size_t merge_fan_in;  // runs one commit thread reads at once
};

// `tail`: the vocabulary has tail words (PairAccumulator), whose buffer
// takes a share of each worker's buffer memory.
Status PlanIngestMemory(const IngestOptions& options, const CorpusOptions& corpus, int threads,
                        size_t vocab_bytes, bool tail, IngestMemoryPlan* plan) {
  const size_t m = options.memory_bytes;
  const size_t store_bytes = config::StoreMemoryBytes(m);
  plan->chunk_bytes = std::min(std::clamp(m / config::kIngestChunkBudgetDivisor,
                                          config::kMinChunkBytes, config::kMaxIngestChunkBytes),
                               corpus.chunk_bytes);
  plan->chunks_in_flight = config::kChunksInFlightPerThread * threads + 2;
  // Every thread merges a key range of the batch at its commit.
  plan->merge_fan_in =
      std::clamp(config::kMergeReserveBytes / threads / config::kRunReadBufferBytes,
                 config::kMinMergeFanIn, config::kMergeFanIn);
  const size_t merge_bytes = std::max(config::kMergeReserveBytes,
                                      threads * plan->merge_fan_in * config::kRunReadBufferBytes) +
                             threads * config::kCommitWriterBytes;
  const size_t fixed = config::kProcessBaselineBytes + store_bytes + vocab_bytes +
                       (plan->chunks_in_flight + 1) * plan->chunk_bytes + merge_bytes;
  if (m < fixed + config::kMinIngestBufferBytes) {
    const std::string least = FormatBytes(fixed + config::kMinIngestBufferBytes);
    // A vocabulary that takes much of the budget is a growing store's long
    // tail, which a fixed vocabulary would cut.
    if (vocab_bytes <= m / 4) {
      return Status::InvalidArgument(
          fmt::format("--memory {} is too small: give at least {}", FormatBytes(m), least));
    }
    return Status::InvalidArgument(fmt::format(
        "--memory {} is too small for this vocabulary ({} of it): give at least {}, or make the "
        "store with --fixed-vocab, which keeps only the words that pass --min-count",
        FormatBytes(m), FormatBytes(vocab_bytes), least));
  }
  const size_t rest = m - fixed;
  // The workers' shared dense region takes half, up to a cap: larger
  // regions catch more pairs, but their pages cost the kernel's zeroing and
  // a commit scans all their cells (config::kMaxDenseRegionBytes).
  plan->dense_bytes = std::min(rest / 2, config::kMaxDenseRegionBytes);
  if (options.max_dense_bytes != 0)
    plan->dense_bytes = std::min(plan->dense_bytes, options.max_dense_bytes);
  const size_t buffers = rest - plan->dense_bytes;
  plan->stitch_records = std::max<size_t>(4096, buffers / 16 / PairBuffer::kBytesPerRecord);
  size_t worker_buffers = std::min((buffers - buffers / 16) / threads, config::kMaxPairBufferBytes);
  if (options.max_buffer_bytes != 0)
    worker_buffers = std::min(worker_buffers, options.max_buffer_bytes);
  const size_t tail_bytes = tail ? worker_buffers / config::kTailBufferShare : 0;
  const size_t min_records = options.max_buffer_bytes != 0 ? 64 : 4096;
  plan->buffer_records =
      std::max(min_records, (worker_buffers - tail_bytes) / PairBuffer::kBytesPerRecord);
  plan->tail_records = tail ? std::max(min_records, tail_bytes / PairBuffer::kBytesPerRecord) : 0;
  if (options.max_buffer_bytes != 0)
    plan->stitch_records = std::min(plan->stitch_records, plan->buffer_records);
  return Status::OK();
}

// What counting with a vocabulary of `words` words holds: the store's
// vocabulary (an entry a word, and `word_bytes` of words too long to sit
// inside one: VocabIndex::OutOfLineBytes), its index, and each worker's word
// counts with their sum at a commit.
size_t CountingVocabBytes(uint64_t words, uint64_t word_bytes, int threads) {
  return words * sizeof(VocabEntry) + word_bytes + VocabIndex::BytesFor(words) +
         (threads + size_t{1}) * words * sizeof(uint64_t);
}

}  // namespace

Status BatchCounter::CheckVocabularyFits(const IngestOptions& options, const CorpusOptions& corpus,
                                         int threads, uint64_t words, uint64_t word_bytes) {
  IngestMemoryPlan plan{};
  return PlanIngestMemory(options, corpus, threads, CountingVocabBytes(words, word_bytes, threads),
                          /*tail=*/true, &plan);
}

uint32_t BatchCounter::HeadWords(const std::vector<VocabEntry>& vocab) {
  const auto head = std::count_if(vocab.begin(), vocab.end(), [](const VocabEntry& e) {
    return e.count >= config::kHeadMinCount;
  });
  return static_cast<uint32_t>(head > 0 ? head : vocab.size());
}

// One chunk's journey through the pipeline.
struct BatchCounter::ChunkWork {
  Chunk chunk;
  ChunkEdges edges;
};

struct BatchCounter::Worker {
  Worker(const CorpusOptions& corpus, const std::vector<InputFile>* inputs, const VocabIndex* vocab,
         uint32_t head_words, DenseRegion* dense, const WindowConfig& window,
         const IngestMemoryPlan& plan, BatchRuns* runs)
      : tokenizer(corpus, inputs),
        pairs(PairAccumulator::Layout{vocab->size(), head_words, dense, plan.buffer_records,
                                      plan.tail_records, window.symmetric},
              runs),
        word_counts(vocab->size(), 0),
        counter(vocab, window, &pairs, word_counts.data()) {}
  ChunkTokenizer tokenizer;
  PairAccumulator pairs;
  std::vector<uint64_t> word_counts;  // by id, since the last TakeWordCounts()
  WindowCounter counter;
};

namespace {

std::vector<std::string> RecordPaths(const std::vector<InputFile>& inputs) {
  std::vector<std::string> paths;
  for (const InputFile& in : inputs) paths.push_back(InputRecordPath(in.path));
  return paths;
}

}  // namespace

BatchCounter::BatchCounter(const std::vector<InputFile>& inputs,
                           std::vector<std::string> fingerprints, bool complete_vocab,
                           const WindowConfig& window, bool progress, int threads,
                           const std::string& runs_dir)
    : fingerprints_(std::move(fingerprints)),
      record_paths_(RecordPaths(inputs)),
      complete_vocab_(complete_vocab),
      window_(window),
      threads_(threads),
      runs_(runs_dir),
      input_tokens_(inputs.size(), 0),
      replaces_(inputs.size()),
      meter_("ingest", progress),
      arena_(threads) {}

BatchCounter::~BatchCounter() = default;

Status BatchCounter::Create(const std::vector<InputFile>& inputs,
                            std::vector<std::string> fingerprints, const VocabIndex* vocab,
                            uint32_t head_words, bool complete_vocab, const WindowConfig& window,
                            const CorpusOptions& corpus_options, const IngestOptions& options,
                            int threads, const std::string& runs_dir,
                            std::unique_ptr<BatchCounter>* counter) {
  head_words = std::min(head_words, vocab->size());
  IngestMemoryPlan plan{};
  SG_RETURN_IF_ERROR(
      PlanIngestMemory(options, corpus_options, threads,
                       CountingVocabBytes(vocab->size(), vocab->out_of_line_bytes(), threads),
                       head_words < vocab->size(), &plan));
  plan.dense_max_product =
      DenseRegion::MaxProductForBytes(head_words, plan.dense_bytes, window.symmetric, threads);
  std::unique_ptr<BatchCounter> c(new BatchCounter(inputs, std::move(fingerprints), complete_vocab,
                                                   window, options.progress, threads, runs_dir));
  c->chunks_in_flight_ = plan.chunks_in_flight;
  c->merge_fan_in_ = plan.merge_fan_in;
  CorpusOptions corpus = corpus_options;
  corpus.chunk_bytes = plan.chunk_bytes;
  c->reader_ = std::make_unique<ChunkReader>(inputs, corpus);
  try {
    c->dense_ = std::make_unique<DenseRegion>(head_words, plan.dense_max_product, window.symmetric,
                                              threads);
    for (int i = 0; i < threads; ++i) {
      c->workers_.push_back(std::make_unique<Worker>(corpus, &c->reader_->inputs(), vocab,
                                                     head_words, c->dense_.get(), c->window_, plan,
                                                     &c->runs_));
    }
    // Stitching adds at most reach^2 pairs a chunk: a buffer alone serves it.
    c->stitch_pairs_ = std::make_unique<PairAccumulator>(
        PairAccumulator::Layout{vocab->size(), vocab->size(), /*dense=*/nullptr,
                                plan.stitch_records, /*tail_records=*/0, window.symmetric},
        &c->runs_);
  } catch (const std::bad_alloc&) {
    const size_t buffer_bytes =
        (plan.buffer_records + plan.tail_records) * PairBuffer::kBytesPerRecord;
    return Status::IOError(fmt::format(
        "out of memory: the counting buffers of --threads {} (a dense region of {} and pair "
        "buffers of {} each) "
        "did not fit in what the machine (or ulimit -v) gave; lower --memory or --threads",
        threads, FormatBytes(plan.dense_bytes), FormatBytes(buffer_bytes)));
  }
  c->stitcher_ = std::make_unique<ChunkStitcher>(c->window_, c->stitch_pairs_.get());
  for (size_t i = 0; i < plan.chunks_in_flight; ++i)
    c->works_.push_back(std::make_unique<ChunkWork>());
  *counter = std::move(c);
  return Status::OK();
}

void BatchCounter::StartInputAt(size_t input, const IngestProgress& from,
                                const std::string& replaces) {
  reader_->StartAt(input, {from.offset, from.continues_line, from.starts_in_token});
  if (input == 0) stitcher_->set_context(from.context);
  input_tokens_[input] = from.tokens;
  replaces_[input] = replaces;
}

void BatchCounter::TakeWordCounts(std::vector<uint64_t>* counts) {
  counts->assign(workers_.empty() ? 0 : workers_[0]->word_counts.size(), 0);
  for (const auto& w : workers_) {
    for (size_t id = 0; id < counts->size(); ++id) (*counts)[id] += w->word_counts[id];
    std::fill(w->word_counts.begin(), w->word_counts.end(), 0);
  }
}

Status BatchCounter::CountBatch(uint64_t max_bytes, bool whole_inputs, Result* result) {
  *result = Result();
  tbb::concurrent_queue<Worker*> idle_workers;
  for (const auto& w : workers_) idle_workers.push(w.get());
  tbb::concurrent_queue<ChunkWork*> idle_works;
  for (const auto& w : works_) idle_works.push(w.get());
  FirstError error;
  uint64_t batch_bytes = 0;
  bool at_input_end = true;  // the last chunk read ended an input
  uint32_t last_input = 0;
  const std::vector<InputFile>& inputs = reader_->inputs();
  arena_.execute([&] {
    tbb::parallel_pipeline(
        chunks_in_flight_,
        tbb::make_filter<void, ChunkWork*>(
            tbb::filter_mode::serial_in_order,
            [&](tbb::flow_control& fc) -> ChunkWork* {
              ChunkWork* work = nullptr;
              // An interrupt ends the batch here: what was read is committed.
              if (error.failed() || (batch_bytes >= max_bytes && (!whole_inputs || at_input_end)) ||
                  Interrupted() || !idle_works.try_pop(work)) {
                fc.stop();
                return nullptr;
              }
              bool done = false;
              if (Status s = reader_->Next(&work->chunk, &done); !s.ok() || done) {
                error.Set(std::move(s));
                result->corpus_done = done;
                idle_works.push(work);
                fc.stop();
                return nullptr;
              }
              batch_bytes += work->chunk.size();
              at_input_end = work->chunk.ends_input;
              meter_.Update(reader_->bytes_consumed(), reader_->bytes_total(), tokens_.load(),
                            increments_.load());
              return work;
            }) &
            tbb::make_filter<ChunkWork*, ChunkWork*>(
                tbb::filter_mode::parallel,
                [&](ChunkWork* work) {
                  Worker* w = nullptr;
                  idle_workers.try_pop(w);  // at most `threads` at once
                  if (!error.failed()) {
                    w->counter.BeginChunk(&work->edges);
                    error.Set(w->tokenizer.Tokenize(work->chunk, &w->counter));
                    w->counter.EndChunk();
                  }
                  idle_workers.push(w);
                  return work;
                }) &
            tbb::make_filter<ChunkWork*, void>(
                tbb::filter_mode::serial_in_order, [&](ChunkWork* work) {
                  if (!error.failed() && complete_vocab_ && work->edges.unknown_tokens > 0) {
                    error.Set(Status::InvalidArgument(fmt::format(
                        "{}: byte {}: words the vocabulary pass did not see: the input changed "
                        "while it was ingested; run ingest again",
                        inputs[work->chunk.input].path, work->chunk.offset)));
                  }
                  if (!error.failed()) {
                    const Chunk& c = work->chunk;
                    stitcher_->Stitch(work->edges);
                    input_tokens_[c.input] += work->edges.tokens;
                    tokens_ += work->edges.tokens;
                    increments_ += work->edges.increments;
                    result->any = true;
                    last_input = c.input;
                    result->ends_input = c.ends_input;
                    if (c.ends_input) {
                      // Whether bytes appended later would start a new document.
                      const bool at_document_end = c.size() == 0 || c.text().back() == '\n';
                      result->finished.push_back(InputRecord{
                          fingerprints_[c.input], record_paths_[c.input], c.offset + c.size(),
                          input_tokens_[c.input], at_document_end});
                      if (!replaces_[c.input].empty())
                        result->replaced.push_back(replaces_[c.input]);
                    }
                  }
                  idle_works.push(work);
                }));
  });
  SG_RETURN_IF_ERROR(error.status());
  for (const auto& w : workers_) SG_RETURN_IF_ERROR(w->pairs.status());
  SG_RETURN_IF_ERROR(stitch_pairs_->status());
  if (result->any && !result->ends_input) {
    const ChunkReader::Position pos = reader_->next_position();
    result->next =
        IngestProgress{fingerprints_[last_input], record_paths_[last_input], pos.offset,
                       pos.continues_line,        pos.starts_in_token,       stitcher_->context(),
                       input_tokens_[last_input], replaces_[last_input]};
  }
  return Status::OK();
}

Status BatchCounter::FinishBatch(BatchCounts* counts) { return FinishBatch(counts, merge_fan_in_); }

Status BatchCounter::FinishBatch(BatchCounts* counts, size_t max_runs) {
  *counts = BatchCounts();
  Status reduced;
  arena_.execute([&] {
    tbb::parallel_for(size_t{0}, workers_.size() + 1, [&](size_t i) {
      (i < workers_.size() ? workers_[i]->pairs : *stitch_pairs_).FinishBatch();
    });
    if (dense_->cells() > 0) counts->dense = dense_.get();
    for (const auto& w : workers_) {
      counts->sorted.push_back(w->pairs.sorted_records());
      counts->sorted.push_back(w->pairs.sorted_tail_records());
    }
    counts->sorted.push_back(stitch_pairs_->sorted_records());
    counts->runs = runs_.Take();
    reduced = ReduceRuns(&counts->runs, max_runs, merge_fan_in_, &runs_);
  });
  return reduced;
}

std::vector<uint64_t> BatchCounter::SplitRanges(const BatchCounts& counts) const {
  return SplitKeySpace(counts, config::CommitRanges(threads_), config::kMinCommitRangeRecords);
}

Status BatchCounter::Merge(BatchCounts* counts, const std::vector<uint64_t>& starts,
                           Store::Batch* batch, const BatchMetadata* metadata) {
  Status merged, written;
  arena_.execute([&] {
    // One task more among the ranges' (a thread that is done with its
    // ranges takes it), not a serial step after them.
    tbb::task_group beside;
    if (metadata != nullptr) beside.run([&] { written = batch->WriteMetadata(*metadata); });
    merged = MergeBatch(counts, starts, batch);
    beside.wait();
  });
  SG_RETURN_IF_ERROR(merged);
  return written;
}

namespace {

// A Store::Batch whose ranges are written as pair runs, one each.
class RunsBatch final : public Store::Batch {
 public:
  explicit RunsBatch(size_t ranges) : runs_(ranges), writers_(ranges) {}
  Status Open(BatchRuns* names) {
    for (size_t i = 0; i < writers_.size(); ++i)
      SG_RETURN_IF_ERROR(writers_[i].Open(names->NewPath(), &runs_[i]));
    return Status::OK();
  }
  size_t ranges() const override { return writers_.size(); }
  Status Add(size_t range, uint32_t row, uint32_t col, uint64_t value) override {
    return writers_[range].Add(PairRecord{PairKey(row, col), value});
  }
  Status FinishRange(size_t range) override { return writers_[range].Finish(); }
  Status WriteMetadata(const BatchMetadata&) override {
    return Status::InvalidArgument("pair runs carry no batch metadata");
  }
  std::vector<PairRun>& runs() { return runs_; }

 private:
  std::vector<PairRun> runs_;
  std::vector<PairRunWriter> writers_;
};

}  // namespace

Status BatchCounter::FinishBatchAsRuns(size_t max_runs, std::vector<PairRun>* runs) {
  // The spilled runs are merged down once, with the in-memory ones, below.
  BatchCounts counts;
  Status s = FinishBatch(&counts, /*max_runs=*/SIZE_MAX);
  *runs = std::move(counts.runs);
  counts.runs.clear();
  if (s.ok()) {
    // What the workers hold in memory, in key ranges merged and written by
    // every thread at once, as the single-process commit does.
    const std::vector<uint64_t> starts = SplitRanges(counts);
    RunsBatch in_memory(starts.size());
    s = in_memory.Open(&runs_);
    if (s.ok()) s = Merge(&counts, starts, &in_memory, /*metadata=*/nullptr);
    for (PairRun& run : in_memory.runs()) {
      if (!run.path.empty()) runs->push_back(std::move(run));
    }
  }
  Clear(counts);
  if (s.ok()) {
    arena_.execute([&] { s = ReduceRuns(runs, max_runs, merge_fan_in_, &runs_); });
  }
  return s;
}

void BatchCounter::Clear(const BatchCounts& counts) {
  std::error_code ec;
  for (const PairRun& run : counts.runs) std::filesystem::remove(run.path, ec);
  for (const auto& w : workers_) w->pairs.Clear();
  stitch_pairs_->Clear();
}

uint64_t BatchCounter::bytes_read() const { return reader_->bytes_consumed(); }

void BatchCounter::Finish(IngestStats* stats) {
  meter_.Finish();
  CorpusLocation first_bad;
  for (const auto& w : workers_) {
    stats->spilled_runs += w->pairs.spilled_runs();
    stats->bad_records += w->tokenizer.bad_records();
    if (w->tokenizer.first_bad_record() < first_bad) {
      first_bad = w->tokenizer.first_bad_record();
      stats->first_bad_record = w->tokenizer.first_bad_reason();
    }
  }
  if (stats->bad_records > 0) {
    stats->messages.push_back(fmt::format("skipped {} bad records (the first: {})",
                                          stats->bad_records, stats->first_bad_record));
  }
}

}  // namespace streamglove
