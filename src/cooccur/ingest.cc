// The ingest command's engine: for each batch of chunks, a bounded oneTBB
// pipeline (serial read -> parallel tokenize and count -> serial in-order
// stitch), then one atomic commit of the batch's counts and reading position.

#include "streamglove/ingest.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>

#include <fmt/format.h>
#include <tbb/concurrent_queue.h>
#include <tbb/info.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_pipeline.h>
#include <tbb/task_arena.h>

#include "cooccur/batch_merge.h"
#include "cooccur/dense_region.h"
#include "cooccur/fixed_point.h"
#include "cooccur/ingest_setup.h"
#include "cooccur/pair_accumulator.h"
#include "cooccur/subsampled_window.h"
#include "cooccur/window_counter.h"
#include "corpus/chunk_tokenizer.h"
#include "store/store.h"
#include "streamglove/vocabulary.h"
#include "util/config.h"
#include "util/first_error.h"
#include "util/interrupt.h"
#include "util/progress.h"
#include "util/size.h"
#include "util/threads.h"
#include "vocab/subsampling.h"
#include "vocab/vocab_index.h"

namespace streamglove {

namespace {

using Clock = std::chrono::steady_clock;
double SecondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

Status PrepareStore(const std::string& dir, const std::vector<InputFile>& inputs,
                    const CorpusOptions& corpus, const IngestOptions& options, int threads,
                    Store* store, IngestStats* stats) {
  const StoreConfig want = IngestStoreConfig(corpus, options);
  if (store->initialized()) {
    if (!options.vocab_file.empty()) {
      stats->messages.push_back(fmt::format(
          "--vocab {} ignored: the store keeps its own vocabulary", options.vocab_file));
    }
    return CheckStoreCompatible(dir, store->config(), want);
  }
  const auto start = Clock::now();
  std::vector<VocabEntry> vocab;
  if (!options.vocab_file.empty()) {
    SG_RETURN_IF_ERROR(ReadVocabFile(options.vocab_file, &vocab));
  } else {
    VocabOptions v;
    v.min_count = options.min_count;
    v.max_vocab = options.max_vocab;
    v.threads = threads;
    v.memory_bytes = options.memory_bytes;
    v.temp_dir = dir;
    v.progress = options.progress;
    VocabStats vs;
    const std::string path = dir + "/vocab.building";
    SG_RETURN_IF_ERROR(BuildVocabulary(inputs, corpus, v, path, &vs));
    Status s = ReadVocabFile(path, &vocab);
    std::error_code ignored;  // a leftover is replaced by the next run's
    std::filesystem::remove(path, ignored);
    SG_RETURN_IF_ERROR(s);
    stats->vocabulary_built = true;
  }
  if (vocab.empty())
    return Status::InvalidArgument("the vocabulary is empty (is --min-count too high?)");
  stats->vocab_seconds = SecondsSince(start);
  return store->Initialize(want, vocab);
}

struct IngestMemoryPlan {
  size_t chunk_bytes;
  size_t chunks_in_flight;
  size_t dense_bytes;
  uint64_t dense_max_product;     // of each worker's region, from dense_bytes
  size_t buffer_records;          // per counting worker
  size_t initial_buffer_records;  // what a buffer uses before it must grow
  size_t stitch_records;
  size_t merge_fan_in;  // runs one commit thread reads at once
};

Status PlanMemory(const IngestOptions& options, const CorpusOptions& corpus, int threads,
                  size_t vocab_bytes, IngestMemoryPlan* plan) {
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
    return Status::InvalidArgument(
        fmt::format("--memory {} is too small for this vocabulary: give at least {}",
                    FormatBytes(m), FormatBytes(fixed + config::kMinIngestBufferBytes)));
  }
  const size_t rest = m - fixed;
  // Each worker's dense region takes half its share, up to a cap: larger
  // regions catch more pairs but miss the caches on nearly every add.
  plan->dense_bytes = std::min(rest / 2 / threads, config::kMaxDenseRegionBytes);
  if (options.max_dense_bytes != 0)
    plan->dense_bytes = std::min(plan->dense_bytes, options.max_dense_bytes);
  const size_t buffers = rest - plan->dense_bytes * threads;
  plan->stitch_records = std::max<size_t>(4096, buffers / 16 / PairBuffer::kBytesPerRecord);
  plan->buffer_records =
      std::max<size_t>(4096, (buffers - buffers / 16) / threads / PairBuffer::kBytesPerRecord);
  plan->initial_buffer_records = config::kInitialPairBufferBytes / PairBuffer::kBytesPerRecord;
  if (options.max_buffer_bytes != 0) {
    plan->buffer_records = std::max<size_t>(
        64, std::min(plan->buffer_records, options.max_buffer_bytes / PairBuffer::kBytesPerRecord));
    plan->stitch_records = std::min(plan->stitch_records, plan->buffer_records);
  }
  return Status::OK();
}

// One chunk's journey through the pipeline.
struct ChunkWork {
  Chunk chunk;
  ChunkEdges edges;
};

struct CountingWorker {
  CountingWorker(const CorpusOptions& corpus, const std::vector<InputFile>* inputs,
                 const VocabIndex* vocab, const WindowConfig& window, const IngestMemoryPlan& plan,
                 BatchRuns* runs)
      : tokenizer(corpus, inputs),
        pairs(vocab->size(), plan.dense_max_product, plan.buffer_records,
              plan.initial_buffer_records, runs),
        counter(vocab, window, &pairs) {}
  ChunkTokenizer tokenizer;
  PairAccumulator pairs;
  WindowCounter counter;
};

// The expected windows of word2vec's subsampling (StoreConfig::subsample),
// with keep probabilities from the vocabulary's counts.
std::unique_ptr<SubsampledWindow> MakeSubsampledWindow(const StoreConfig& config,
                                                       const std::vector<VocabEntry>& vocab) {
  uint64_t tokens = 0;  // as word2vec's train_words: the vocabulary's counts
  for (const VocabEntry& e : vocab) tokens += e.count;
  std::vector<double> keep;
  for (const VocabEntry& e : vocab) {
    keep.push_back(SubsampleKeepProbability(e.count, tokens, config.subsample));
  }
  return std::make_unique<SubsampledWindow>(std::move(keep), config.window, config.weighting,
                                            config.scale);
}

}  // namespace

Status ValidateIngestOptions(const IngestOptions& options) {
  if (options.window < 1 || options.window > kMaxWindow) {
    return Status::InvalidArgument(fmt::format("--window must be between 1 and {}", kMaxWindow));
  }
  if (options.min_count < 1) return Status::InvalidArgument("--min-count must be at least 1");
  if (!(options.subsample >= 0 && options.subsample < 1)) {
    return Status::InvalidArgument("--subsample must be at least 0 and below 1");
  }
  SG_RETURN_IF_ERROR(CheckThreads(options.threads));
  if (options.memory_bytes < kMinMemoryBytes) {
    return Status::InvalidArgument(fmt::format("--memory must be at least {}",
                                               FormatBytes(static_cast<double>(kMinMemoryBytes))));
  }
  // A cell gains at most 2 * scale * H(W) units per token (W = 20, a text of
  // one repeated word): 64-bit sums hold about 1.1e10 such tokens, so a
  // batch of 16 GiB of text cannot overflow before its commit checks.
  if (options.batch_bytes < (uint64_t{1} << 16) || options.batch_bytes > (uint64_t{16} << 30)) {
    return Status::InvalidArgument("--batch-size must be between 64K and 16G");
  }
  return Status::OK();
}

Status Ingest(const std::string& store_dir, const std::vector<InputFile>& inputs,
              const CorpusOptions& corpus_options, const IngestOptions& options,
              IngestStats* stats) {
  *stats = IngestStats();
  // More counting threads than cores would only contend for them.
  const int cores = AvailableCores();
  const int threads = std::min(ResolveThreads(options.threads), cores);
  stats->threads = threads;
  if (options.threads > cores) {
    stats->messages.push_back(fmt::format(
        "--threads {}: using {}, the cores this process may run on", options.threads, cores));
  }
  for (const InputFile& in : inputs) {
    if (in.path == "-")
      return Status::InvalidArgument(
          "ingest reads files it can re-read to resume: save stdin to a file first");
  }

  // A store this call creates is removed again if it never gets a
  // vocabulary (bad input in the vocabulary pass, a bad --vocab file).
  std::error_code exists_ec;
  const bool created = !std::filesystem::exists(store_dir, exists_ec);
  std::unique_ptr<Store> store;
  SG_RETURN_IF_ERROR(Store::Open(store_dir, options.memory_bytes, /*create=*/true, &store));
  SG_RETURN_IF_ERROR(CheckNoDistributedIngestPending(store_dir));

  // Which inputs to read, in which order: a partly ingested one first.
  InputSelection selected;
  SG_RETURN_IF_ERROR(SelectInputs(store_dir, inputs, options, store.get(), &selected, stats));
  const std::vector<InputFile>& todo = selected.inputs;
  const std::vector<std::string>& todo_fingerprints = selected.fingerprints;
  const IngestProgress& progress = selected.progress;
  const bool resuming = selected.resuming;
  if (Status s = PrepareStore(store_dir, todo.empty() ? inputs : todo, corpus_options, options,
                              threads, store.get(), stats);
      !s.ok()) {
    if (created && !store->initialized()) {
      store.reset();
      std::error_code ec;
      std::filesystem::remove_all(store_dir, ec);
    }
    return s;
  }
  stats->vocab_size = store->vocab().size();
  if (todo.empty()) return Status::OK();

  const StoreConfig& config = store->config();
  const VocabIndex vocab(store->vocab());
  const std::unique_ptr<SubsampledWindow> subsampled =
      config.subsample > 0 ? MakeSubsampledWindow(config, store->vocab()) : nullptr;
  const WindowConfig window{config.window, config.symmetric, config.scale, config.weighting,
                            subsampled.get()};
  IngestMemoryPlan plan;
  SG_RETURN_IF_ERROR(PlanMemory(options, corpus_options, threads, vocab.memory_bytes() * 2, &plan));
  plan.dense_max_product = DenseRegion::MaxProductForBytes(vocab.size(), plan.dense_bytes);

  const std::string runs_dir = store_dir + "/runs";
  std::error_code ec;
  std::filesystem::remove_all(runs_dir, ec);
  if (!std::filesystem::create_directories(runs_dir, ec) && ec) {
    return Status::IOError(fmt::format("{}: {}", runs_dir, ec.message()));
  }
  BatchRuns runs(runs_dir);

  CorpusOptions corpus = corpus_options;
  corpus.chunk_bytes = plan.chunk_bytes;
  ChunkReader reader(todo, corpus);
  if (resuming)
    reader.StartAt({progress.offset, progress.continues_line, progress.starts_in_token});

  // The counting buffers are mapped whole here (their pages fill as they are
  // used), so a machine, or ulimit -v, that gives less than --memory fails
  // now, naming what did not fit.
  std::vector<std::unique_ptr<CountingWorker>> workers;
  std::unique_ptr<PairAccumulator> stitch_owner;
  try {
    for (int i = 0; i < threads; ++i) {
      workers.push_back(
          std::make_unique<CountingWorker>(corpus, &reader.inputs(), &vocab, window, plan, &runs));
    }
    // Stitching adds at most reach^2 pairs a chunk: a buffer alone serves it.
    stitch_owner = std::make_unique<PairAccumulator>(
        vocab.size(), /*max_product=*/0, plan.stitch_records, plan.initial_buffer_records, &runs);
  } catch (const std::bad_alloc&) {
    const size_t buffer_bytes = plan.buffer_records * PairBuffer::kBytesPerRecord;
    return Status::IOError(fmt::format(
        "out of memory: the counting buffers of --threads {} ({} each: a dense region of {} and "
        "pair buffers of {}) "
        "did not fit in what the machine (or ulimit -v) gave; lower --memory or --threads",
        threads, FormatBytes(plan.dense_bytes + buffer_bytes), FormatBytes(plan.dense_bytes),
        FormatBytes(buffer_bytes)));
  }
  PairAccumulator& stitch_pairs = *stitch_owner;
  tbb::concurrent_queue<CountingWorker*> idle_workers;
  for (const auto& w : workers) idle_workers.push(w.get());
  ChunkStitcher stitcher(window, &stitch_pairs);
  std::vector<uint64_t> input_tokens(todo.size(), 0);  // touched by the serial stitch stage only
  if (resuming) {
    stitcher.set_context(progress.context);
    input_tokens[0] = progress.tokens;
  }
  std::vector<std::unique_ptr<ChunkWork>> works;
  tbb::concurrent_queue<ChunkWork*> idle_works;
  for (size_t i = 0; i < plan.chunks_in_flight; ++i) {
    works.push_back(std::make_unique<ChunkWork>());
    idle_works.push(works.back().get());
  }

  FirstError error;
  std::atomic<uint64_t> tokens{0}, increments{0};
  ProgressMeter meter("ingest", options.progress);
  tbb::task_arena arena(threads);

  bool corpus_done = false;
  while (!corpus_done) {
    const auto batch_start = Clock::now();
    uint64_t batch_bytes = 0;
    bool any = false, last_ends_input = false;
    uint32_t last_input = 0;
    std::vector<InputRecord> finished;
    arena.execute([&] {
      tbb::parallel_pipeline(
          plan.chunks_in_flight,
          tbb::make_filter<void, ChunkWork*>(
              tbb::filter_mode::serial_in_order,
              [&](tbb::flow_control& fc) -> ChunkWork* {
                ChunkWork* work = nullptr;
                // An interrupt ends the batch here: what was read is committed.
                if (error.failed() || batch_bytes >= options.batch_bytes || Interrupted() ||
                    !idle_works.try_pop(work)) {
                  fc.stop();
                  return nullptr;
                }
                bool done = false;
                if (Status s = reader.Next(&work->chunk, &done); !s.ok() || done) {
                  error.Set(std::move(s));
                  corpus_done = done;
                  idle_works.push(work);
                  fc.stop();
                  return nullptr;
                }
                batch_bytes += work->chunk.size();
                meter.Update(reader.bytes_consumed(), reader.bytes_total(), tokens.load(),
                             increments.load());
                return work;
              }) &
              tbb::make_filter<ChunkWork*, ChunkWork*>(
                  tbb::filter_mode::parallel,
                  [&](ChunkWork* work) {
                    CountingWorker* w = nullptr;
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
                    if (!error.failed()) {
                      const Chunk& c = work->chunk;
                      stitcher.Stitch(work->edges);
                      input_tokens[c.input] += work->edges.tokens;
                      tokens += work->edges.tokens;
                      increments += work->edges.increments;
                      any = true;
                      last_input = c.input;
                      last_ends_input = c.ends_input;
                      if (c.ends_input) {
                        finished.push_back(InputRecord{todo_fingerprints[c.input],
                                                       todo[c.input].path, c.offset + c.size(),
                                                       input_tokens[c.input]});
                      }
                    }
                    idle_works.push(work);
                  }));
    });
    SG_RETURN_IF_ERROR(error.status());
    for (const auto& w : workers) SG_RETURN_IF_ERROR(w->pairs.status());
    SG_RETURN_IF_ERROR(stitch_pairs.status());
    stats->count_seconds += SecondsSince(batch_start);
    if (!any && Interrupted()) {
      meter.Finish();
      return InterruptedStatus(fmt::format(
          "{} batches committed; run the same command again to continue", stats->batches));
    }
    if (!any) break;

    // Commit: the dense regions, every buffer and every spilled run, merged
    // by key range on every thread.
    const auto commit_start = Clock::now();
    BatchCounts counts;
    std::unique_ptr<Store::Batch> batch;
    Status merged;
    arena.execute([&] {
      tbb::parallel_for(size_t{0}, workers.size() + 1, [&](size_t i) {
        (i < workers.size() ? workers[i]->pairs : stitch_pairs).FinishBatch();
      });
      for (const auto& w : workers) {
        if (w->pairs.dense()->cells() > 0) counts.dense.push_back(w->pairs.dense());
        counts.sorted.push_back(w->pairs.sorted_records());
      }
      counts.sorted.push_back(stitch_pairs.sorted_records());
      counts.runs = runs.Take();
      merged = ReduceRuns(&counts.runs, plan.merge_fan_in, &runs);
      if (!merged.ok()) return;
      const std::vector<uint64_t> starts = SplitKeySpace(
          counts, threads * config::kCommitRangesPerThread, config::kMinCommitRangeRecords);
      merged = store->NewBatch(starts.size(), &batch);
      if (merged.ok()) merged = MergeBatch(&counts, starts, batch.get());
    });
    SG_RETURN_IF_ERROR(merged);
    IngestProgress next;
    if (!last_ends_input) {
      const ChunkReader::Position pos = reader.next_position();
      next = IngestProgress{todo_fingerprints[last_input],
                            todo[last_input].path,
                            pos.offset,
                            pos.continues_line,
                            pos.starts_in_token,
                            stitcher.context(),
                            input_tokens[last_input]};
    }
    SG_RETURN_IF_ERROR(
        store->CommitBatch(std::move(batch), last_ends_input ? nullptr : &next, finished));
    for (const PairRun& run : counts.runs) std::filesystem::remove(run.path, ec);
    for (const auto& w : workers) w->pairs.Clear();
    stitch_pairs.Clear();
    stats->inputs_ingested += finished.size();
    ++stats->batches;
    stats->commit_seconds += SecondsSince(commit_start);
    if (Interrupted() && !corpus_done) {
      meter.Finish();
      std::filesystem::remove_all(runs_dir, ec);
      return InterruptedStatus(
          fmt::format("{} batches committed, the last up to byte {} of {}; run the same command "
                      "again to continue",
                      stats->batches, reader.next_position().offset, todo[last_input].path));
    }
  }
  meter.Finish();
  CorpusLocation first_bad;
  for (const auto& w : workers) {
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
  stats->tokens = tokens;
  stats->increments = increments;
  stats->bytes_read = reader.bytes_consumed();
  std::filesystem::remove_all(runs_dir, ec);
  return Status::OK();
}

}  // namespace streamglove
