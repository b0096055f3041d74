#include "cooccur/distributed/distributed_ingest.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <numeric>
#include <sstream>

#include <fmt/format.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "cooccur/batch_counter.h"
#include "cooccur/batch_merge.h"
#include "cooccur/cooccur_tuning.h"
#include "cooccur/distributed/distributed_vocab.h"
#include "cooccur/distributed/run_slices.h"
#include "cooccur/distributed/stream_exchange.h"
#include "cooccur/ingest_setup.h"
#include "cooccur/pair_buffer.h"
#include "cooccur/pair_run.h"
#include "store/store.h"
#include "store/store_records.h"
#include "store/store_tuning.h"
#include "streamglove/interrupt.h"
#include "streamglove/phrases.h"
#include "util/coding.h"
#include "util/config.h"
#include "util/duration.h"
#include "util/file.h"
#include "util/threads.h"
#include "vocab/vocab_index.h"

namespace streamglove {

namespace {

using Clock = std::chrono::steady_clock;

// The job's transient files, under STORE/distributed (emptied by rank 0 at
// the start of every job: nothing in it outlives a round's commit).
struct JobPaths {
  explicit JobPaths(const std::string& store_dir)
      : dir(store_dir + "/" + kDistributedIngestDir), vocab(dir + "/vocab.txt") {}
  std::string Runs(int rank) const { return fmt::format("{}/runs-{}", dir, rank); }
  // The prefix of rank `rank`'s SST file of round `round`.
  std::string Rows(int rank, uint64_t round) const {
    return fmt::format("{}/rows-{}-round-{}", dir, rank, round);
  }

  const std::string dir, vocab;
};

// Which rank ingests which input, broadcast whole (paths, not places in a
// listing: ranks that list a directory may not see the same files).
struct Plan {
  int ranks = 0;
  bool needs_vocabulary = false;
  struct Input {
    int rank = 0;
    InputFile file;
    std::string fingerprint;
  };
  std::vector<Input> inputs;
};

// "N NEEDS_VOCABULARY\n", then per input
// "RANK FORMAT SIZE FINGERPRINT PATH_BYTES PATH\n".
std::string EncodePlan(const Plan& plan) {
  std::string text = fmt::format("{} {}\n", plan.ranks, plan.needs_vocabulary ? 1 : 0);
  for (const Plan::Input& in : plan.inputs) {
    text += fmt::format("{} {} {} {} {} {}\n", in.rank, static_cast<int>(in.file.format),
                        in.file.size, in.fingerprint, in.file.path.size(), in.file.path);
  }
  return text;
}

Plan DecodePlan(const std::string& text) {
  Plan plan;
  std::istringstream in(text);
  int needs = 0;
  in >> plan.ranks >> needs;
  plan.needs_vocabulary = needs != 0;
  Plan::Input input;
  int format = 0;
  size_t path_bytes = 0;
  while (in >> input.rank >> format >> input.file.size >> input.fingerprint >> path_bytes &&
         in.get() == ' ') {
    input.file.format = static_cast<InputFormat>(format);
    input.file.path.assign(path_bytes, '\0');
    in.read(input.file.path.data(), static_cast<std::streamsize>(path_bytes));
    plan.inputs.push_back(input);
  }
  return plan;
}

// Rank 0: opens the store, selects the inputs as the single-process ingest
// does and assigns them to ranks, largest first to the least loaded.
Status PlanOnRoot(const std::string& store_dir, int ranks, const std::vector<InputFile>& inputs,
                  const CorpusOptions& corpus, const IngestOptions& options,
                  std::unique_ptr<Store>* store, Plan* plan, IngestStats* stats) {
  SG_RETURN_IF_ERROR(Store::Open(store_dir, options.memory_bytes, /*create=*/true, store));
  InputSelection selected;
  SG_RETURN_IF_ERROR(SelectInputs(store_dir, inputs, options, store->get(), &selected, stats));
  if (selected.resuming) {
    return Status::InvalidArgument(
        fmt::format("{}: a single-process ingest of {} was interrupted at byte {}: finish it with "
                    "`streamglove ingest` (without mpirun) first",
                    store_dir, selected.progress.path, selected.progress.offset));
  }
  if (!selected.grown.empty()) {
    const InputFile& grown = selected.inputs[selected.grown.front().first];
    return Status::InvalidArgument(
        fmt::format("{}: grew since it was ingested: add its new part with `streamglove ingest` "
                    "(without mpirun), which reads it from where it ended",
                    grown.path));
  }
  if ((*store)->initialized()) {
    SG_RETURN_IF_ERROR(
        CheckStoreCompatible(store_dir, (*store)->config(), IngestStoreConfig(corpus, options)));
  }
  plan->ranks = ranks;
  plan->needs_vocabulary = !(*store)->initialized();
  std::vector<size_t> order(selected.inputs.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return selected.inputs[a].size > selected.inputs[b].size;
  });
  std::vector<uint64_t> load(ranks, 0);
  std::vector<int> rank_of(selected.inputs.size());
  for (size_t j : order) {
    const int r = static_cast<int>(std::min_element(load.begin(), load.end()) - load.begin());
    rank_of[j] = r;
    load[r] += std::max<uint64_t>(selected.inputs[j].size, 1);
  }
  // In the selection's order: each rank reads its inputs as one process would.
  for (size_t j = 0; j < selected.inputs.size(); ++j)
    plan->inputs.push_back(Plan::Input{rank_of[j], selected.inputs[j], selected.fingerprints[j]});
  return Status::OK();
}

// The distinct pairs expected in each row, for rows of words counted
// `counts` times (by row) in the job's inputs: a word's 2W window positions
// are n = count x 2W draws from the unigram distribution, which meet
// D(n) = sum over words j of 1 - (1 - p_j)^n distinct words. D is computed
// against the counts' histogram (a corpus has thousands of distinct counts,
// however many words) at draws growing by 2^(1/8), and interpolated
// between them in log n (D is smooth: the error is far below the rows'
// spread).
std::vector<double> ExpectedRowPairs(const std::vector<uint64_t>& counts, uint32_t window) {
  std::map<uint64_t, uint64_t> histogram;  // count -> words with it
  double tokens = 0;
  for (uint64_t c : counts) {
    if (c == 0) continue;
    ++histogram[c];
    tokens += static_cast<double>(c);
  }
  std::vector<double> weight(counts.size(), 0);
  if (histogram.empty()) return weight;
  const auto distinct = [&](double draws) {
    double d = 0;  // 1 - (1 - p)^n, as -expm1(n log1p(-p)) for precision at small p
    for (const auto& [count, words] : histogram)
      d -= static_cast<double>(words) *
           std::expm1(draws * std::log1p(-static_cast<double>(count) / tokens));
    return d;
  };
  const double step = std::log(2.0) / 8;  // of log n between grid points
  const double most = static_cast<double>(histogram.rbegin()->first) * 2 * window;
  std::vector<double> grid;  // D(exp(k * step))
  for (size_t k = 0; k == 0 || std::exp((k - 1) * step) < most; ++k)
    grid.push_back(distinct(std::exp(k * step)));
  for (size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] == 0) continue;
    const double at = std::log(static_cast<double>(counts[i]) * 2 * window) / step;
    const auto k = std::min(static_cast<size_t>(at), grid.size() - 2);
    weight[i] = grid[k] + (at - k) * (grid[k + 1] - grid[k]);
  }
  return weight;
}

// Rank 0: the first row of each rank's range, "b0 b1 ... b(N-1)", each range
// about an equal share of the distinct pairs the job brings
// (ExpectedRowPairs of the words' counts in the job's inputs, by row).
std::string RowStarts(const std::vector<uint64_t>& counts, uint32_t window, int ranks) {
  const std::vector<double> weight = ExpectedRowPairs(counts, window);
  const double total = std::accumulate(weight.begin(), weight.end(), 0.0);
  std::string text = "0";
  double sum = 0;
  size_t row = 0;
  for (int k = 1; k < ranks; ++k) {
    while (row < counts.size() && sum < total * k / ranks) sum += weight[row++];
    text += fmt::format(" {}", row);
  }
  return text;
}

// The slices of every rank's runs that hold this rank's rows, [begin, end),
// merged (summed) into its rows' SST files for rank 0 to commit: the rows
// cut into key ranges of about equal records (SplitKeySpace on the slices'
// group index), one file each, merged in parallel on `arena`; *files is
// empty when no pair came. The runs are read where their ranks wrote them.
Status MergeSlices(const JobPaths& paths, int rank, uint64_t round, size_t vocab_size,
                   PairBlockLayout layout, const std::vector<PairRun>& slices, uint64_t begin,
                   uint64_t end, tbb::task_arena* arena, std::vector<std::string>* files,
                   uint64_t* pairs) {
  BatchCounts sampled;
  sampled.runs = slices;
  std::vector<uint64_t> starts{begin};
  const size_t max_ranges =
      static_cast<size_t>(arena->max_concurrency()) * config::kCommitRangesPerThread;
  for (uint64_t start : SplitKeySpace(sampled, max_ranges, config::kMinCommitRangeRecords)) {
    if (start > begin && start < end) starts.push_back(start);
  }
  std::unique_ptr<Store::Batch> rows;
  SG_RETURN_IF_ERROR(
      Store::NewDetachedBatch(paths.Rows(rank, round), vocab_size, layout, starts.size(), &rows));
  std::vector<Status> status(starts.size());
  std::vector<uint64_t> range_pairs(starts.size(), 0);
  arena->execute([&] {
    tbb::parallel_for(size_t{0}, starts.size(), [&](size_t i) {
      const uint64_t range_end = i + 1 < starts.size() ? starts[i + 1] : end;
      std::vector<std::unique_ptr<PairStream>> streams;
      for (const PairRun& slice : slices)
        streams.push_back(NewPairRunReader(slice, starts[i], range_end));
      status[i] = MergePairStreams(std::move(streams), [&](const PairRecord& r) {
        ++range_pairs[i];
        return rows->Add(i, PairRow(r.key), PairCol(r.key), r.value);
      });
      if (status[i].ok()) status[i] = rows->FinishRange(i);
    });
  });
  for (size_t i = 0; i < starts.size(); ++i) {
    SG_RETURN_IF_ERROR(status[i]);
    *pairs += range_pairs[i];
  }
  return Store::FinishDetachedBatch(std::move(rows), files);
}

// What a rank tells rank 0 at the end of a round: its rows' SST files and
// the inputs it finished, as length-prefixed strings (the records in the
// store's own encoding): varint(files) | file... | varint(records) |
// (fingerprint | record)...
std::string EncodeRoundReport(const std::vector<std::string>& files,
                              const std::vector<InputRecord>& finished) {
  std::string text, value;
  PutVarint64(&text, files.size());
  for (const std::string& f : files) PutLengthPrefixed(&text, f);
  PutVarint64(&text, finished.size());
  for (const InputRecord& r : finished) {
    PutLengthPrefixed(&text, r.fingerprint);
    value.clear();
    EncodeInputRecord(r, &value);
    PutLengthPrefixed(&text, value);
  }
  return text;
}

Status DecodeRoundReport(const std::string& text, std::vector<std::string>* files,
                         std::vector<InputRecord>* finished) {
  const char* p = text.data();
  const char* const limit = p + text.size();
  uint64_t n = 0;
  bool ok = GetVarint64(&p, limit, &n);
  for (std::string_view f; ok && n > 0; --n) {
    ok = GetLengthPrefixed(&p, limit, &f);
    if (ok) files->emplace_back(f);
  }
  ok = ok && GetVarint64(&p, limit, &n);
  for (std::string_view fingerprint, value; ok && n > 0; --n) {
    InputRecord r;
    ok = GetLengthPrefixed(&p, limit, &fingerprint) && GetLengthPrefixed(&p, limit, &value) &&
         DecodeInputRecord(fingerprint, value, &r);
    if (ok) finished->push_back(std::move(r));
  }
  if (!ok || p != limit)
    return Status::Corruption("distributed ingest: a malformed round report from a rank");
  return Status::OK();
}

// A rank's word counts of a round, sparse: (varint(id delta) varint(count))
// for each counted id, ascending.
std::string EncodeWordCounts(const std::vector<uint64_t>& counts) {
  std::string text;
  uint64_t last = 0;
  for (uint64_t id = 0; id < counts.size(); ++id) {
    if (counts[id] == 0) continue;
    PutVarint64(&text, id - last);
    PutVarint64(&text, counts[id]);
    last = id;
  }
  return text;
}

Status AddWordCounts(const std::string& text, std::vector<uint64_t>* sums) {
  const char* p = text.data();
  const char* const limit = p + text.size();
  uint64_t id = 0;
  while (p != limit) {
    uint64_t delta = 0, count = 0;
    if (!GetVarint64(&p, limit, &delta) || !GetVarint64(&p, limit, &count) ||
        id + delta >= sums->size()) {
      return Status::Corruption("distributed ingest: malformed word counts from a rank");
    }
    id += delta;
    (*sums)[id] += count;
  }
  return Status::OK();
}

// The end of a round, collective: every rank's row files, finished inputs
// and word counts go to rank 0, which commits them in one step (row ranges
// in rank order: disjoint). The status is rank 0's (to be agreed).
Status CommitRound(MpiWorld* world, Store* store, size_t vocab_size,
                   const std::vector<std::string>& row_files,
                   const std::vector<InputRecord>& finished,
                   const std::vector<uint64_t>& word_counts, DistributedIngestStats* stats) {
  std::vector<std::string> reports, counts;
  world->Gather(EncodeRoundReport(row_files, finished), &reports);
  world->Gather(EncodeWordCounts(word_counts), &counts);
  if (world->rank() != 0) return Status::OK();
  std::vector<std::string> files;
  BatchMetadata metadata;
  metadata.word_counts.assign(vocab_size, 0);
  for (const std::string& report : reports)
    SG_RETURN_IF_ERROR(DecodeRoundReport(report, &files, &metadata.finished));
  for (const std::string& c : counts) SG_RETURN_IF_ERROR(AddWordCounts(c, &metadata.word_counts));
  SG_RETURN_IF_ERROR(store->CommitBatchFiles(files, metadata));
  stats->ingest.inputs_ingested += metadata.finished.size();
  for (const InputRecord& r : metadata.finished) stats->text_bytes += r.bytes;
  return Status::OK();
}

// The job's counting figures summed over the ranks, collective (rank 0
// keeps the messages).
void SumCounting(MpiWorld* world, BatchCounter* counter, DistributedIngestStats* stats) {
  IngestStats counted;
  counter->Finish(&counted);
  stats->ingest.tokens = world->Sum(counter->tokens());
  stats->ingest.increments = world->Sum(counter->increments());
  stats->ingest.bytes_read = world->Sum(counter->bytes_read());
  stats->ingest.spilled_runs = world->Sum(counted.spilled_runs);
  stats->ingest.bad_records = world->Sum(counted.bad_records);
  stats->ingest.vocab_seconds = stats->vocab_seconds;
  stats->ingest.count_seconds = stats->count_seconds;
  stats->ingest.commit_seconds =
      stats->exchange_seconds + stats->merge_seconds + stats->commit_seconds;
  if (world->rank() != 0) return;
  for (const std::string& m : counted.messages) stats->ingest.messages.push_back(m);
  if (stats->ingest.bad_records > counted.bad_records) {
    stats->ingest.messages.push_back(fmt::format("the other ranks skipped {} bad records",
                                                 stats->ingest.bad_records - counted.bad_records));
  }
}

// Phase 2 of a distributed ingest, collective: the vocabulary pass over the
// ranks' inputs, then on rank 0 (which holds `store`) a new store's
// vocabulary (`fresh`) or the words an existing store adds (a fixed one
// reports the words it will drop). *balance_counts (rank 0): the job's
// counts of the store's words, by id, which RowStarts weighs rows by (the
// store's counts are not yet the job's: none on a new store, the earlier
// inputs' on an addition, where the new words have none); empty when the
// vocabulary came from a file (the store's counts are then the file's).
Status AgreeVocabulary(MpiWorld* world, const std::vector<InputFile>& mine,
                       const CorpusOptions& corpus, const IngestOptions& options, bool fresh,
                       size_t work_memory, int threads, const std::string& temp_dir, Store* store,
                       std::vector<uint64_t>* balance_counts, DistributedIngestStats* stats) {
  const bool root = world->rank() == 0;
  const StoreConfig want = IngestStoreConfig(corpus, options);
  std::vector<VocabEntry> vocab;
  Status s;
  if (fresh && !options.vocab_file.empty()) {
    if (root) s = ReadVocabFile(options.vocab_file, &vocab);
  } else {
    // On an addition, rank 0 holds the store's vocabulary beside its pass.
    size_t pass_bytes = work_memory;
    if (root && !fresh)
      s = AdditionPassBytes(options, corpus, threads, store->vocab(), &pass_bytes);
    SG_RETURN_IF_ERROR(world->Agree(s));
    const VocabCut cut = fresh ? FirstVocabularyCut(want, options) : VocabCut{};
    VocabOptions v;
    v.min_count = cut.min_count;
    v.max_vocab = cut.max_vocab;
    v.threads = threads;
    v.memory_bytes = pass_bytes;
    v.temp_dir = temp_dir;
    v.progress = options.progress && root;
    ExchangeStats vocab_exchange;
    s = BuildDistributedVocabulary(world, mine, corpus, v, &vocab, &vocab_exchange);
    stats->vocab_exchange_bytes = world->Sum(vocab_exchange.bytes_sent);
    stats->ingest.vocabulary_built = fresh;
  }
  if (root && s.ok()) {
    IngestOptions counting = options;  // what rank 0 counts with, beside the open store
    counting.memory_bytes = work_memory;
    if (!fresh) {
      s = AddInputWords(VocabWords(&vocab), counting, corpus, threads, store, &stats->ingest,
                        balance_counts);
    } else {
      if (!want.fixed_vocabulary)
        s = CheckNewWordsFit(VocabWords(&vocab), 0, 0, counting, corpus, threads);
      if (s.ok() && options.vocab_file.empty()) {
        // A new store's ids are the vocabulary's order, its counts the job's.
        balance_counts->reserve(vocab.size());
        for (const VocabEntry& e : vocab) balance_counts->push_back(e.count);
      }
      if (s.ok()) s = InitializeStore(want, std::move(vocab), store, &stats->ingest);
    }
  }
  return world->Agree(s);
}

// Phase 1, collective: rank 0 opens (or creates) the store and plans which
// rank reads which input; every rank gets the plan, and *mine its inputs
// with their fingerprints. What an earlier job left (it was killed) is
// never counted: the job's directory starts empty.
Status PlanJob(MpiWorld* world, const std::string& store_dir, const JobPaths& paths,
               const std::vector<InputFile>& inputs, const CorpusOptions& corpus,
               const IngestOptions& options, std::unique_ptr<Store>* store, Plan* plan,
               std::vector<InputFile>* mine, std::vector<std::string>* my_fingerprints,
               DistributedIngestStats* stats) {
  Status s;
  if (world->rank() == 0) {
    s = PlanOnRoot(store_dir, world->size(), inputs, corpus, options, store, plan, &stats->ingest);
    std::error_code ec;
    if (s.ok()) std::filesystem::remove_all(paths.dir, ec);
    if (s.ok() && !plan->inputs.empty() && !std::filesystem::create_directories(paths.dir, ec))
      s = Status::IOError(fmt::format("{}: {}", paths.dir, ec.message()));
  }
  SG_RETURN_IF_ERROR(world->Agree(s));
  std::string plan_text = EncodePlan(*plan);
  world->Broadcast(&plan_text);
  *plan = DecodePlan(plan_text);
  for (const Plan::Input& in : plan->inputs) {
    if (in.rank != world->rank()) continue;
    mine->push_back(in.file);
    my_fingerprints->push_back(in.fingerprint);
  }
  return Status::OK();
}

// What a rank counts with: the store's configuration and vocabulary as rank
// 0 shares them, the index and windows made of them, its counter, and where
// each rank's rows start.
struct RankCounting {
  StoreConfig config;
  std::vector<VocabEntry> entries;
  std::unique_ptr<VocabIndex> vocab;
  std::unique_ptr<StoreWindow> window;
  std::unique_ptr<BatchCounter> counter;  // after vocab and window, which it points to
  std::vector<uint64_t> owner_starts;     // pair keys: the first of each rank's rows
};

// Phase 2's end, collective: rank 0 shares the store's configuration, its
// vocabulary (as a file in the job's directory: the ranks take ids from the
// file's order, and counts only to subsample, so a word no batch has
// counted yet is written with 1, as a vocabulary file's counts are
// positive) and where each rank's rows start (weighed by `balance_counts`
// when given).
Status ShareVocabulary(MpiWorld* world, const JobPaths& paths, Store* store,
                       std::vector<uint64_t> balance_counts, RankCounting* counting) {
  const bool root = world->rank() == 0;
  std::string config_text, row_starts_text;
  Status s;
  if (root) {
    EncodeConfig(store->config(), &config_text);
    if (balance_counts.empty()) {
      for (const VocabEntry& e : store->vocab()) balance_counts.push_back(e.count);
    }
    row_starts_text = RowStarts(balance_counts, store->config().window, world->size());
    std::vector<VocabEntry> ranks_vocab = store->vocab();
    for (VocabEntry& e : ranks_vocab) e.count = std::max<uint64_t>(e.count, 1);
    s = WriteVocabFile(paths.vocab, ranks_vocab);
  }
  SG_RETURN_IF_ERROR(world->Agree(s));
  world->Broadcast(&config_text);
  world->Broadcast(&row_starts_text);
  std::istringstream in(row_starts_text);
  for (uint32_t row = 0; in >> row;) counting->owner_starts.push_back(PairKey(row, 0));
  s = DecodeConfig(config_text, &counting->config)
          ? Status::OK()
          : Status::Corruption("distributed ingest: a malformed store configuration from rank 0");
  if (s.ok()) {
    s = root ? (counting->entries = store->vocab(), Status::OK())
             : ReadVocabFile(paths.vocab, &counting->entries);
  }
  return world->Agree(s);
}

// This rank's counter over its inputs, its runs in the job's directory.
Status StartCounting(MpiWorld* world, const JobPaths& paths, const std::vector<InputFile>& mine,
                     const std::vector<std::string>& my_fingerprints, const CorpusOptions& corpus,
                     const IngestOptions& counting_options, int threads, RankCounting* counting) {
  counting->vocab = std::make_unique<VocabIndex>(counting->entries);
  counting->window = std::make_unique<StoreWindow>(counting->config, counting->entries);
  const std::string runs = paths.Runs(world->rank());
  std::error_code ec;
  Status s;
  if (!std::filesystem::create_directories(runs, ec) && ec)
    s = Status::IOError(fmt::format("{}: {}", runs, ec.message()));
  if (s.ok()) {
    s = BatchCounter::Create(mine, my_fingerprints, counting->vocab.get(),
                             BatchCounter::HeadWords(counting->entries),
                             !counting->config.fixed_vocabulary, counting->window->config, corpus,
                             counting_options, threads, runs, &counting->counter);
  }
  return world->Agree(s);
}

// Each owner learns which parts of which runs hold its rows (*slices, from
// every rank): the runs stay where they were written (STORE is on a file
// system every rank sees, as the commit needs), so no pair is copied before
// its owner merges it. They were closed before the round's agreement:
// NFS's close-to-open consistency, or a cluster file system's coherence,
// shows them whole to the owners' hosts. *bytes_for_others: the run bytes
// the other ranks will read from this one.
Status ExchangeSlices(MpiWorld* world, const std::vector<PairRun>& runs,
                      const std::vector<uint64_t>& owner_starts, std::vector<PairRun>* slices,
                      uint64_t* bytes_for_others) {
  const int ranks = world->size();
  std::vector<std::string> outgoing(ranks), incoming(ranks);
  *bytes_for_others = 0;
  for (int to = 0; to < ranks; ++to) {
    const uint64_t end = to + 1 < ranks ? owner_starts[to + 1] : UINT64_MAX;
    std::vector<PairRun> mine;
    for (const PairRun& run : runs) {
      PairRun slice = RunSlice(run, owner_starts[to], end);
      if (slice.groups.empty()) continue;  // none of the owner's rows
      if (to != world->rank()) *bytes_for_others += SliceBytes(run, slice);
      mine.push_back(std::move(slice));
    }
    EncodeSlices(mine, &outgoing[to]);
  }
  ExchangeStats exchange;
  Status s = ExchangeStreams(
      world, config::kExchangeChunkBytes,
      [&](int to, StreamSink* sink) { return sink->Write(outgoing[to]); },
      [&](int from, std::string_view bytes) {
        incoming[from].append(bytes);
        return Status::OK();
      },
      &exchange);
  for (int from = 0; s.ok() && from < ranks; ++from) s = DecodeSlices(incoming[from], slices);
  return world->Agree(s);
}

// Phase 3, collective: rounds, until every rank has read all its inputs.
// Each rank counts whole inputs (about --batch-size of text) and writes its
// counts as sorted runs; each owner merges its rows' slices of every rank's
// runs into SST files; rank 0 commits them with the round's input records.
//
// An owner merges every rank's runs at once, each of its threads reading
// each run: so few runs per rank (at least 2), and so many merging threads
// (at least 1), that the readers fit in the merge reserve of the counting's
// memory plan, as in the single-process commit.
Status CountRounds(MpiWorld* world, const JobPaths& paths, Store* store, int threads,
                   const IngestOptions& options, bool my_inputs_done, RankCounting* counting,
                   DistributedIngestStats* stats) {
  const int ranks = world->size(), rank = world->rank();
  const std::vector<uint64_t>& owner_starts = counting->owner_starts;
  const auto max_threads = static_cast<size_t>(world->Max(threads));
  const size_t reserve_readers = config::kMergeReserveBytes / config::kRunReadBufferBytes;
  const size_t runs_per_rank =
      std::max<size_t>(2, std::min(reserve_readers / max_threads, config::kMergeFanIn) / ranks);
  const size_t owner_fan_in = runs_per_rank * ranks;
  tbb::task_arena merge_arena(static_cast<int>(
      std::clamp<size_t>(reserve_readers / owner_fan_in, 1, static_cast<size_t>(threads))));
  uint64_t my_exchange_bytes = 0;  // run bytes other ranks read from this one, all rounds
  uint64_t my_pairs = 0;           // merged by this rank, all rounds
  for (;;) {
    auto phase = Clock::now();
    BatchCounter::Result round;
    Status s = my_inputs_done ? Status::OK()
                              : counting->counter->CountBatch(options.batch_bytes,
                                                              /*whole_inputs=*/true, &round);
    // An interrupt ends the job before the round commits: the inputs of an
    // uncommitted round are read again by the rerun. Rounds hold whole
    // inputs: a round's records say exactly what it counted.
    if (s.ok() && round.any && !round.ends_input && !Interrupted())
      s = Status::IOError("distributed ingest: a round ended inside an input");
    if (s.ok() && Interrupted())
      s = InterruptedStatus(
          fmt::format("{} inputs committed; run the same command again to continue",
                      stats->ingest.inputs_ingested));
    SG_RETURN_IF_ERROR(world->Agree(s));
    my_inputs_done = my_inputs_done || round.corpus_done || !round.any;
    if (world->Sum(round.any ? 1 : 0) == 0) break;
    ++stats->ingest.batches;

    std::vector<PairRun> runs;
    s = counting->counter->FinishBatchAsRuns(runs_per_rank, &runs);
    std::vector<uint64_t> word_counts;
    counting->counter->TakeWordCounts(&word_counts);
    // Removed once every owner has read them, however the round ends.
    struct RemoveRuns {
      const std::vector<PairRun>* runs;
      ~RemoveRuns() {
        for (const PairRun& run : *runs) ::unlink(run.path.c_str());
      }
    } remove_runs{&runs};
    SG_RETURN_IF_ERROR(world->Agree(s));
    stats->count_seconds += world->Max(SecondsSince(phase));

    phase = Clock::now();
    std::vector<PairRun> slices;
    uint64_t bytes_for_others = 0;
    SG_RETURN_IF_ERROR(ExchangeSlices(world, runs, owner_starts, &slices, &bytes_for_others));
    stats->pair_exchange_bytes += world->Sum(bytes_for_others);
    my_exchange_bytes += bytes_for_others;
    stats->exchange_seconds += world->Max(SecondsSince(phase));

    phase = Clock::now();
    uint64_t pairs = 0;
    std::vector<std::string> row_files;
    const uint64_t my_end = rank + 1 < ranks ? owner_starts[rank + 1] : UINT64_MAX;
    SG_RETURN_IF_ERROR(
        world->Agree(MergeSlices(paths, rank, stats->ingest.batches, counting->vocab->size(),
                                 counting->config.block_layout(), slices, owner_starts[rank],
                                 my_end, &merge_arena, &row_files, &pairs)));
    stats->pairs += world->Sum(pairs);
    my_pairs += pairs;
    stats->merge_seconds += world->Max(SecondsSince(phase));

    // Rank 0 commits the ranks' files (row ranges in rank order: disjoint)
    // with the round's input records, in one step.
    phase = Clock::now();
    s = CommitRound(world, store, counting->vocab->size(), row_files, round.finished, word_counts,
                    stats);
    SG_RETURN_IF_ERROR(world->Agree(s));
    stats->commit_seconds += world->Max(SecondsSince(phase));
  }
  stats->max_rank_exchange_bytes = static_cast<uint64_t>(world->Max(my_exchange_bytes));
  stats->max_rank_pairs = static_cast<uint64_t>(world->Max(my_pairs));
  return Status::OK();
}

}  // namespace

Status DistributedIngest(MpiWorld* world, const std::string& store_dir,
                         const std::vector<InputFile>& inputs, const CorpusOptions& corpus,
                         const IngestOptions& options, DistributedIngestStats* stats) {
  *stats = DistributedIngestStats();
  const bool root = world->rank() == 0;
  stats->ranks = world->size();
  int threads = 0;
  SG_RETURN_IF_ERROR(StartIngest(inputs, options, &stats->ingest, &threads));
  if (options.force) {
    // A job commits in rounds: after an interruption the forced rerun would
    // count the committed rounds' inputs again.
    return Status::InvalidArgument(
        "--force is for one process: a distributed job interrupted between its rounds could not "
        "be rerun without counting the committed ones twice");
  }
  const JobPaths paths(store_dir);

  // 1. The plan. A store this job creates is removed again if it never gets
  // a vocabulary (an input refused, bad input in the vocabulary pass), as by
  // the single-process ingest.
  auto phase = Clock::now();
  std::error_code exists_ec;
  const bool created = root && !std::filesystem::exists(store_dir, exists_ec);
  std::unique_ptr<Store> store;  // rank 0's, locked until the end
  const auto remove_if_new = [&](const Status& s) {
    if (s.ok() || !created || store == nullptr || store->initialized()) return;
    store.reset();
    std::error_code ec;
    std::filesystem::remove_all(store_dir, ec);
  };
  // Rank 0 removes the job's transient files however it ends (the other
  // ranks have left the collective that ended it), while it holds the
  // store's lock (destroyed before `store`): they may be another job's
  // before and after.
  struct RemoveOnExit {
    const std::string* dir = nullptr;
    ~RemoveOnExit() {
      std::error_code ec;
      if (dir != nullptr) std::filesystem::remove_all(*dir, ec);
    }
  } remove_on_exit;
  // Each rank reads the phrase list itself (it may be another machine's
  // copy): a rank that would join other phrases would count another text.
  const std::string my_phrases =
      corpus.phrases != nullptr && !corpus.phrases->empty() ? corpus.phrases->fingerprint() : "";
  std::string root_phrases = my_phrases;
  world->Broadcast(&root_phrases);
  SG_RETURN_IF_ERROR(world->Agree(
      my_phrases == root_phrases
          ? Status::OK()
          : Status::InvalidArgument(fmt::format(
                "rank {}: its --phrases list ({}) is not rank 0's ({}): give every rank the same",
                world->rank(), my_phrases.empty() ? "none" : my_phrases,
                root_phrases.empty() ? "none" : root_phrases))));
  Plan plan;
  std::vector<InputFile> mine;
  std::vector<std::string> my_fingerprints;
  const Status planned = PlanJob(world, store_dir, paths, inputs, corpus, options, &store, &plan,
                                 &mine, &my_fingerprints, stats);
  if (store != nullptr) remove_on_exit.dir = &paths.dir;
  remove_if_new(planned);
  SG_RETURN_IF_ERROR(planned);
  stats->plan_seconds = world->Max(SecondsSince(phase));
  if (plan.inputs.empty()) {
    if (root) stats->ingest.vocab_size = store->vocab().size();
    return Status::OK();
  }
  // Rank 0 keeps the store open beside its own share of the work: that
  // share's budget is --memory less what the open store holds.
  IngestOptions counting_options = options;
  counting_options.memory_bytes =
      root ? std::max(kMinMemoryBytes,
                      options.memory_bytes - config::StoreMemoryBytes(options.memory_bytes))
           : options.memory_bytes;
  counting_options.progress = options.progress && root;

  // 2. The vocabulary: a new store's, or the words an existing one adds
  // (a fixed one reports the words it will drop).
  phase = Clock::now();
  std::vector<uint64_t> balance_counts;  // rank 0: what RowStarts weighs rows by
  Status s = AgreeVocabulary(world, mine, corpus, options, plan.needs_vocabulary,
                             counting_options.memory_bytes, threads, paths.dir, store.get(),
                             &balance_counts, stats);
  remove_if_new(s);
  SG_RETURN_IF_ERROR(s);
  if (root) stats->ingest.vocab_size = store->vocab().size();
  RankCounting counting;
  SG_RETURN_IF_ERROR(
      ShareVocabulary(world, paths, store.get(), std::move(balance_counts), &counting));
  stats->vocab_seconds = world->Max(SecondsSince(phase));
  SG_RETURN_IF_ERROR(StartCounting(world, paths, mine, my_fingerprints, corpus, counting_options,
                                   threads, &counting));

  // 3. The rounds.
  SG_RETURN_IF_ERROR(
      CountRounds(world, paths, store.get(), threads, options, mine.empty(), &counting, stats));
  SumCounting(world, counting.counter.get(), stats);
  counting.counter.reset();
  // Every rank is done with the job's files before rank 0 removes them.
  return world->Agree(Status::OK());
}

Status IngestDistributed(const std::string& store_dir, const std::vector<InputFile>& inputs,
                         const CorpusOptions& corpus, const IngestOptions& options,
                         const Status& prepared,
                         const std::function<void(int rank, const Status& outcome,
                                                  const DistributedIngestStats& stats)>& report) {
  std::unique_ptr<MpiWorld> world;
  SG_RETURN_IF_ERROR(MpiWorld::Init(&world));
  DistributedIngestStats stats;
  Status s = world->Agree(prepared);
  if (s.ok()) s = DistributedIngest(world.get(), store_dir, inputs, corpus, options, &stats);
  report(world->rank(), s, stats);
  return s;
}

}  // namespace streamglove
