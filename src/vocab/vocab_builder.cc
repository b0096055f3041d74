// The vocabulary pass: a bounded oneTBB pipeline (serial chunk reader ->
// parallel tokenize-and-count) into per-worker tables that spill sorted runs
// when they outgrow their share of the memory budget; then one merge.

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <thread>

#include <fmt/format.h>

#include "corpus/chunk_pipeline.h"
#include "corpus/chunk_tokenizer.h"
#include "streamglove/vocabulary.h"
#include "util/config.h"
#include "util/file.h"
#include "util/mutex.h"
#include "util/progress.h"
#include "util/threads.h"
#include "util/token_lookahead.h"
#include "vocab/word_count_table.h"
#include "vocab/word_counts.h"
#include "vocab/word_run.h"

namespace streamglove {

namespace {

struct VocabMemoryPlan {
  size_t chunk_bytes;
  size_t chunks_in_flight;
  size_t table_bytes;  // per worker
  size_t merge_bytes;  // for the final merge, once the pipeline is gone
};

VocabMemoryPlan PlanVocabMemory(const CorpusOptions& corpus, const VocabOptions& options,
                                int threads) {
  VocabMemoryPlan plan;
  const size_t budget = options.memory_bytes;
  plan.chunk_bytes = std::clamp(budget / config::kChunkBudgetDivisor, config::kMinChunkBytes,
                                std::max(corpus.chunk_bytes, config::kMinChunkBytes));
  plan.chunks_in_flight = config::kChunksInFlightPerThread * threads + 1;
  // Each chunk buffer, plus the reader's carry-over of at most one chunk.
  const size_t chunk_memory = (plan.chunks_in_flight + 1) * plan.chunk_bytes;
  const size_t work = budget > config::kProcessBaselineBytes + chunk_memory
                          ? budget - config::kProcessBaselineBytes - chunk_memory
                          : 0;
  plan.table_bytes = options.spill_threshold_bytes != 0
                         ? options.spill_threshold_bytes
                         : std::max(config::kMinTableBytes, work / threads);
  plan.merge_bytes = options.spill_threshold_bytes != 0
                         ? options.spill_threshold_bytes
                         : std::max(config::kMinTableBytes,
                                    budget - std::min(budget, config::kProcessBaselineBytes));
  return plan;
}

// What a plan holds: its chunk buffers and tables, with the process's baseline.
size_t PlannedBytes(const VocabMemoryPlan& plan, int threads) {
  return config::kProcessBaselineBytes + (plan.chunks_in_flight + 1) * plan.chunk_bytes +
         threads * plan.table_bytes;
}

}  // namespace

size_t LeastVocabularyMemory(const CorpusOptions& corpus, int threads) {
  // The chunks grow with the budget, so step up to the budget that holds
  // its own plan (the steps shrink by a chunk's share of the budget).
  VocabOptions options;
  options.spill_threshold_bytes = config::kMinTableBytes;
  size_t budget = 0;
  for (;;) {
    options.memory_bytes = budget;
    const size_t planned = PlannedBytes(PlanVocabMemory(corpus, options, threads), threads);
    if (planned <= budget) return budget;
    budget = planned;
  }
}

namespace {

// Spill runs of one vocabulary pass, written by any worker.
class RunSet {
 public:
  explicit RunSet(std::string dir) : dir_(std::move(dir)) {}

  // Drains `table` in `order` into a new run file.
  Status Spill(WordCountTable* table, WordCountTable::Order order) {
    std::string path;
    {
      MutexLock lock(&mu_);
      path = fmt::format("{}/run-{}", dir_, runs_.size());
      runs_.push_back(path);
    }
    WordRunWriter writer;
    SG_RETURN_IF_ERROR(writer.Open(path));
    Status s;
    table->Drain(order, 1, [&](std::string_view w, uint64_t c) {
      if (s.ok()) s = writer.Add(w, c);
    });
    SG_RETURN_IF_ERROR(s);
    return writer.Finish();
  }

  // Takes the runs written so far (the set is then empty).
  std::vector<std::string> Take() {
    MutexLock lock(&mu_);
    return std::exchange(runs_, {});
  }
  size_t size() {
    MutexLock lock(&mu_);
    return runs_.size();
  }
  const std::string& dir() const { return dir_; }

 private:
  const std::string dir_;
  Mutex mu_;
  std::vector<std::string> runs_ GUARDED_BY(mu_);
};

// A worker's state: its table, its tokenizer, and the first error it met.
class VocabWorker final : public TokenSink {
 public:
  VocabWorker(size_t table_bytes, const CorpusOptions& corpus, const std::vector<InputFile>* inputs,
              RunSet* runs)
      : table_(table_bytes), tokenizer_(corpus, inputs), runs_(runs) {}

  Status Count(const Chunk& chunk) {
    const Status tokenized = tokenizer_.Tokenize(chunk, this);
    lookahead_.Drain([this](std::string_view word, uint64_t hash) { CountWord(word, hash); });
    SG_RETURN_IF_ERROR(tokenized);
    return error_;
  }

  void OnToken(std::string_view token) override {
    lookahead_.Push(
        token, [this](uint64_t hash) { table_.Prefetch(hash); },
        [this](std::string_view word, uint64_t hash) { CountWord(word, hash); });
  }
  void OnDocumentEnd() override {}

  WordCountTable& table() { return table_; }
  const ChunkTokenizer& tokenizer() const { return tokenizer_; }

 private:
  void CountWord(std::string_view word, uint64_t hash) {
    if (table_.Add(word, hash, 1)) return;
    if (error_.ok()) error_ = runs_->Spill(&table_, WordCountTable::Order::kByWord);
    table_.Add(word, hash, 1);  // an emptied table always has room for one word
  }

  TokenLookahead lookahead_;
  WordCountTable table_;
  ChunkTokenizer tokenizer_;
  RunSet* runs_;
  Status error_;
};

// Writes "word count" lines, stopping after max_vocab (0: no limit).
class VocabFileWriter {
 public:
  explicit VocabFileWriter(uint64_t max_vocab) : max_vocab_(max_vocab) {}
  Status Open(const std::string& path) { return file_.Open(path); }
  Status Add(std::string_view word, uint64_t count) {
    if (max_vocab_ != 0 && written_ >= max_vocab_) return Status::OK();
    line_.assign(word);
    fmt::format_to(std::back_inserter(line_), " {}\n", count);
    ++written_;
    return file_.Append(line_);
  }
  Status Commit() { return file_.Commit(); }
  uint64_t written() const { return written_; }

 private:
  const uint64_t max_vocab_;
  AtomicFileWriter file_;
  std::string line_;
  uint64_t written_ = 0;
};

// Merges the spilled word-ordered runs, applies min_count, orders by count
// (spilling count-ordered runs when the survivors outgrow the budget) and
// writes the file.
Status MergeFromRuns(RunSet* runs, const VocabOptions& options, size_t merge_bytes,
                     VocabFileWriter* out, VocabStats* stats) {
  WordCountTable survivors(merge_bytes);
  RunSet count_runs(runs->dir() + "/by-count");
  if (::mkdir(count_runs.dir().c_str(), 0700) != 0) return ErrnoStatus(count_runs.dir(), errno);
  Status s = MergeWordRuns(
      runs->Take(), WordCountTable::Order::kByWord, config::kMergeFanIn, runs->dir(),
      [&](std::string_view word, uint64_t count) -> Status {
        ++stats->distinct_words;
        if (count < options.min_count) return Status::OK();
        if (survivors.Add(word, count)) return Status::OK();
        SG_RETURN_IF_ERROR(count_runs.Spill(&survivors, WordCountTable::Order::kByCountDesc));
        survivors.Add(word, count);
        return Status::OK();
      });
  SG_RETURN_IF_ERROR(s);
  if (count_runs.size() == 0) {
    survivors.Drain(WordCountTable::Order::kByCountDesc, 1, [&](std::string_view w, uint64_t c) {
      if (s.ok()) s = out->Add(w, c);
    });
    return s;
  }
  SG_RETURN_IF_ERROR(count_runs.Spill(&survivors, WordCountTable::Order::kByCountDesc));
  stats->spill_runs += count_runs.size();
  return MergeWordRuns(count_runs.Take(), WordCountTable::Order::kByCountDesc, config::kMergeFanIn,
                       count_runs.dir(),
                       [&](std::string_view w, uint64_t c) { return out->Add(w, c); });
}

// The counting phase of a pass: every token of the inputs in the workers'
// tables and the runs they spilled.
struct CountedWords {
  VocabMemoryPlan plan;
  TempDir temp;
  std::unique_ptr<RunSet> runs;
  std::unique_ptr<ChunkReader> reader;  // the workers' tokenizers point into it
  std::vector<std::unique_ptr<VocabWorker>> workers;
  size_t table_bytes = 0;  // held by the workers' tables at the end
};

Status CountTokens(const std::vector<InputFile>& inputs, const CorpusOptions& corpus_options,
                   const VocabOptions& options, CountedWords* counted, VocabStats* stats) {
  const int threads = ResolveThreads(options.threads);
  stats->threads = threads;
  counted->plan = PlanVocabMemory(corpus_options, options, threads);
  CorpusOptions corpus = corpus_options;
  corpus.chunk_bytes = counted->plan.chunk_bytes;

  SG_RETURN_IF_ERROR(counted->temp.Create(options.temp_dir, kVocabTempPrefix));
  counted->runs = std::make_unique<RunSet>(counted->temp.path());

  counted->reader = std::make_unique<ChunkReader>(inputs, corpus);
  ChunkReader& reader = *counted->reader;
  std::vector<std::unique_ptr<VocabWorker>>& workers = counted->workers;
  std::vector<VocabWorker*> worker_ptrs;
  for (int i = 0; i < threads; ++i) {
    workers.push_back(std::make_unique<VocabWorker>(counted->plan.table_bytes, corpus,
                                                    &reader.inputs(), counted->runs.get()));
    worker_ptrs.push_back(workers.back().get());
  }
  std::atomic<uint64_t> tokens{0};
  ProgressMeter progress("vocab", options.progress);
  const Status counted_status = ForEachChunk<VocabWorker>(
      &reader, worker_ptrs, counted->plan.chunks_in_flight,
      [&] { progress.Update(reader.bytes_consumed(), reader.bytes_total(), tokens.load()); },
      [&](VocabWorker* worker, const Chunk& chunk) {
        const uint64_t before = worker->tokenizer().stats().tokens;
        const Status s = worker->Count(chunk);
        tokens += worker->tokenizer().stats().tokens - before;
        return s;
      });
  progress.Finish();
  SG_RETURN_IF_ERROR(counted_status);
  stats->bytes_read = reader.bytes_consumed();

  CorpusLocation first_bad;
  for (const auto& w : workers) {
    stats->tokenizer.Add(w->tokenizer().stats());
    stats->bad_records += w->tokenizer().bad_records();
    if (w->tokenizer().first_bad_record() < first_bad) {
      first_bad = w->tokenizer().first_bad_record();
      stats->first_bad_record = w->tokenizer().first_bad_reason();
    }
    counted->table_bytes += w->table().memory_bytes();
  }
  return Status::OK();
}

// True when the workers' tables can be merged in memory: nothing spilled and
// the merged table fits the final merge's share.
bool MergesInMemory(const CountedWords& counted) {
  return counted.runs->size() == 0 && 2 * counted.table_bytes <= counted.plan.merge_bytes;
}

// The workers' tables merged into one (and the workers freed).
void MergeTables(CountedWords* counted, WordCountTable* merged) {
  for (auto& w : counted->workers) {
    w->table().ForEach([&](std::string_view word, uint64_t count) { merged->Add(word, count); });
    w.reset();
  }
}

// Spills every worker's table as a word-ordered run (and frees the workers).
Status SpillTables(CountedWords* counted, VocabStats* stats) {
  for (auto& w : counted->workers) {
    if (w->table().size() > 0)
      SG_RETURN_IF_ERROR(counted->runs->Spill(&w->table(), WordCountTable::Order::kByWord));
    w.reset();
  }
  stats->spill_runs = counted->runs->size();
  return Status::OK();
}

}  // namespace

Status CountWordsInOrder(const std::vector<InputFile>& inputs, const CorpusOptions& corpus,
                         const VocabOptions& options, const WordEmitter& emit, VocabStats* stats) {
  *stats = VocabStats();
  CountedWords counted;
  SG_RETURN_IF_ERROR(CountTokens(inputs, corpus, options, &counted, stats));
  if (MergesInMemory(counted)) {
    WordCountTable merged;
    MergeTables(&counted, &merged);
    stats->distinct_words = merged.size();
    Status s;
    merged.Drain(WordCountTable::Order::kByWord, 1, [&](std::string_view word, uint64_t count) {
      if (s.ok()) s = emit(word, count);
    });
    return s;
  }
  SG_RETURN_IF_ERROR(SpillTables(&counted, stats));
  return MergeWordRuns(counted.runs->Take(), WordCountTable::Order::kByWord, config::kMergeFanIn,
                       counted.runs->dir(), [&](std::string_view word, uint64_t count) {
                         ++stats->distinct_words;
                         return emit(word, count);
                       });
}

Status BuildVocabulary(const std::vector<InputFile>& inputs, const CorpusOptions& corpus_options,
                       const VocabOptions& options, const std::string& output_path,
                       VocabStats* stats) {
  const auto start = std::chrono::steady_clock::now();
  *stats = VocabStats();
  // What a killed pass left: nothing else would remove it. (Not in
  // CountTokens: a distributed job's ranks, other machines among them, make
  // their folders side by side at the same moment.)
  RemoveDeadLeftovers(TempDir::ResolveParent(options.temp_dir), kVocabTempPrefix);
  CountedWords counted;
  SG_RETURN_IF_ERROR(CountTokens(inputs, corpus_options, options, &counted, stats));

  VocabFileWriter out(options.max_vocab);
  SG_RETURN_IF_ERROR(out.Open(output_path));
  if (MergesInMemory(counted)) {
    WordCountTable merged;
    MergeTables(&counted, &merged);
    stats->distinct_words = merged.size();
    Status s;
    merged.Drain(WordCountTable::Order::kByCountDesc, options.min_count,
                 [&](std::string_view word, uint64_t count) {
                   if (s.ok()) s = out.Add(word, count);
                 });
    SG_RETURN_IF_ERROR(s);
  } else {
    SG_RETURN_IF_ERROR(SpillTables(&counted, stats));
    SG_RETURN_IF_ERROR(
        MergeFromRuns(counted.runs.get(), options, counted.plan.merge_bytes, &out, stats));
  }
  SG_RETURN_IF_ERROR(out.Commit());
  stats->kept_words = out.written();
  stats->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return Status::OK();
}

}  // namespace streamglove
