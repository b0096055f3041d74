#include "cooccur_mpi/distributed_ingest.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <numeric>
#include <sstream>

#include <fmt/format.h>

#include "cooccur/batch_counter.h"
#include "cooccur/ingest_setup.h"
#include "cooccur/pair_buffer.h"
#include "cooccur/pair_run.h"
#include "cooccur_mpi/distributed_vocab.h"
#include "cooccur_mpi/stream_exchange.h"
#include "store/store.h"
#include "store/store_records.h"
#include "util/coding.h"
#include "util/config.h"
#include "util/file.h"
#include "util/interrupt.h"
#include "util/threads.h"
#include "vocab/vocab_index.h"

namespace streamglove {

namespace {

using Clock = std::chrono::steady_clock;
double SecondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// The job's transient files, under STORE/distributed (emptied by rank 0 at
// the start of every job: nothing in it outlives a round's commit).
struct JobPaths {
  explicit JobPaths(const std::string& store_dir)
      : dir(store_dir + "/" + kDistributedIngestDir), vocab(dir + "/vocab.txt") {}
  std::string Runs(int rank) const { return fmt::format("{}/runs-{}", dir, rank); }
  std::string Outgoing(int rank, int to) const {
    return fmt::format("{}/from-{}-to-{}.out", dir, rank, to);
  }
  std::string Received(int rank, int from) const {
    return fmt::format("{}/from-{}-to-{}.in", dir, from, rank);
  }
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

// Rank 0: the first row of each rank's range, "b0 b1 ... b(N-1)", each range
// about an equal share of the distinct pairs: a row's are estimated as its
// word's count times the 2W window positions, at most the vocabulary.
std::string RowStarts(const std::vector<VocabEntry>& vocab, uint32_t window, int ranks) {
  std::vector<double> weight(vocab.size());
  for (size_t i = 0; i < vocab.size(); ++i) {
    weight[i] = std::min(static_cast<double>(vocab[i].count) * 2 * window,
                         static_cast<double>(vocab.size()));
  }
  const double total = std::accumulate(weight.begin(), weight.end(), 0.0);
  std::string text = "0";
  double sum = 0;
  size_t row = 0;
  for (int k = 1; k < ranks; ++k) {
    while (row < vocab.size() && sum < total * k / ranks) sum += weight[row++];
    text += fmt::format(" {}", row);
  }
  return text;
}

// A round's counts as one run file per owner rank: the key ranges of a
// Store::Batch, so that the single-process commit's merge (MergeBatch)
// writes them. Range k is rank k's rows.
class OwnerRuns final : public Store::Batch {
 public:
  OwnerRuns(const JobPaths& paths, int rank, int ranks) : runs_(ranks), writers_(ranks) {
    for (int k = 0; k < ranks; ++k) paths_.push_back(paths.Outgoing(rank, k));
  }
  Status Open() {
    for (size_t k = 0; k < writers_.size(); ++k)
      SG_RETURN_IF_ERROR(writers_[k].Open(paths_[k], &runs_[k]));
    return Status::OK();
  }
  size_t ranges() const override { return writers_.size(); }
  Status Add(size_t range, uint32_t row, uint32_t col, uint64_t value) override {
    return writers_[range].Add(PairRecord{PairKey(row, col), value});
  }
  Status FinishRange(size_t range) override { return writers_[range].Finish(); }
  const std::string& path(int k) const { return paths_[k]; }

 private:
  std::vector<std::string> paths_;
  std::vector<PairRun> runs_;
  std::vector<PairRunWriter> writers_;
};

// The runs received by this rank merged (summed) into its rows' SST file
// for rank 0 to commit: *files is empty when no pair came.
Status MergeReceived(const JobPaths& paths, int rank, uint64_t round, size_t vocab_size,
                     const std::vector<std::string>& received, std::vector<std::string>* files,
                     uint64_t* pairs) {
  std::vector<PairRun> runs;
  for (const std::string& path : received) runs.push_back(PairRun{path, {}, UINT64_MAX});
  std::vector<std::unique_ptr<PairStream>> streams;
  for (const PairRun& run : runs) streams.push_back(NewPairRunReader(run));
  std::unique_ptr<Store::Batch> rows;
  SG_RETURN_IF_ERROR(Store::NewDetachedBatch(paths.Rows(rank, round), vocab_size, 1, &rows));
  SG_RETURN_IF_ERROR(MergePairStreams(std::move(streams), [&](const PairRecord& r) {
    ++*pairs;
    return rows->Add(0, PairRow(r.key), PairCol(r.key), r.value);
  }));
  SG_RETURN_IF_ERROR(Store::FinishDetachedBatch(std::move(rows), files));
  std::error_code ec;
  for (const std::string& path : received) std::filesystem::remove(path, ec);
  return Status::OK();
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

}  // namespace

Status DistributedIngest(MpiWorld* world, const std::string& store_dir,
                         const std::vector<InputFile>& inputs, const CorpusOptions& corpus,
                         const IngestOptions& options, DistributedIngestStats* stats) {
  *stats = DistributedIngestStats();
  const int ranks = world->size(), rank = world->rank();
  const bool root = rank == 0;
  stats->ranks = ranks;
  const int threads = std::min(ResolveThreads(options.threads), AvailableCores());
  stats->ingest.threads = threads;
  for (const InputFile& in : inputs) {
    if (in.path == "-")
      return Status::InvalidArgument(
          "ingest reads files it can re-read to resume: save stdin to a file first");
  }
  if (options.force) {
    // A job commits in rounds: after an interruption the forced rerun would
    // count the committed rounds' inputs again.
    return Status::InvalidArgument(
        "--force is for one process: a distributed job interrupted between its rounds could not "
        "be rerun without counting the committed ones twice");
  }
  const JobPaths paths(store_dir);

  // 1. The plan. A store this job creates is removed again if it never gets
  // a vocabulary (bad input in the vocabulary pass), as by the single-process
  // ingest.
  auto phase = Clock::now();
  std::error_code exists_ec;
  const bool created = root && !std::filesystem::exists(store_dir, exists_ec);
  std::unique_ptr<Store> store;  // rank 0's, locked until the end
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
  Plan plan;
  Status s;
  if (root) {
    s = PlanOnRoot(store_dir, ranks, inputs, corpus, options, &store, &plan, &stats->ingest);
    if (store != nullptr) remove_on_exit.dir = &paths.dir;
    // What an earlier job left (it was killed) is never counted: it starts
    // from an empty directory.
    std::error_code ec;
    if (s.ok()) std::filesystem::remove_all(paths.dir, ec);
    if (s.ok() && !plan.inputs.empty() && !std::filesystem::create_directories(paths.dir, ec))
      s = Status::IOError(fmt::format("{}: {}", paths.dir, ec.message()));
  }
  SG_RETURN_IF_ERROR(world->Agree(s));
  std::string plan_text = EncodePlan(plan);
  world->Broadcast(&plan_text);
  plan = DecodePlan(plan_text);
  std::vector<InputFile> mine;
  std::vector<std::string> my_fingerprints;
  for (const Plan::Input& in : plan.inputs) {
    if (in.rank != rank) continue;
    mine.push_back(in.file);
    my_fingerprints.push_back(in.fingerprint);
  }
  stats->plan_seconds = world->Max(SecondsSince(phase));
  if (plan.inputs.empty()) {
    if (root) stats->ingest.vocab_size = store->vocab().size();
    return Status::OK();
  }
  // Rank 0 keeps the store open beside its own share of the work: that
  // share's budget is --memory less what the open store holds.
  const size_t work_memory =
      root ? std::max(kMinMemoryBytes,
                      options.memory_bytes - config::StoreMemoryBytes(options.memory_bytes))
           : options.memory_bytes;

  // 2. The vocabulary of a new store.
  phase = Clock::now();
  if (plan.needs_vocabulary) {
    std::vector<VocabEntry> vocab;
    s = Status::OK();
    if (!options.vocab_file.empty()) {
      if (root) s = ReadVocabFile(options.vocab_file, &vocab);
    } else {
      VocabOptions v;
      v.min_count = options.min_count;
      v.max_vocab = options.max_vocab;
      v.threads = options.threads;
      v.memory_bytes = work_memory;
      v.temp_dir = paths.dir;
      v.progress = options.progress && root;
      ExchangeStats vocab_exchange;
      s = BuildDistributedVocabulary(world, mine, corpus, v, &vocab, &vocab_exchange);
      stats->vocab_exchange_bytes = world->Sum(vocab_exchange.bytes_sent);
      stats->ingest.vocabulary_built = true;
    }
    if (root && s.ok()) {
      s = vocab.empty()
              ? Status::InvalidArgument("the vocabulary is empty (is --min-count too high?)")
              : store->Initialize(IngestStoreConfig(corpus, options), vocab);
    }
    s = world->Agree(s);
    if (!s.ok() && created && !store->initialized()) {
      store.reset();
      std::error_code ec;
      std::filesystem::remove_all(store_dir, ec);
    }
    SG_RETURN_IF_ERROR(s);
  }
  std::string config_text, row_starts_text;
  if (root) {
    stats->ingest.vocab_size = store->vocab().size();
    EncodeConfig(store->config(), &config_text);
    row_starts_text = RowStarts(store->vocab(), store->config().window, ranks);
  }
  SG_RETURN_IF_ERROR(
      world->Agree(root ? WriteVocabFile(paths.vocab, store->vocab()) : Status::OK()));
  world->Broadcast(&config_text);
  world->Broadcast(&row_starts_text);
  std::vector<uint64_t> owner_starts;  // pair keys: the first of each rank's rows
  {
    std::istringstream in(row_starts_text);
    uint32_t row = 0;
    while (in >> row) owner_starts.push_back(PairKey(row, 0));
  }
  stats->vocab_seconds = world->Max(SecondsSince(phase));

  // The counting state of this rank: the store's configuration (its own
  // record encoding, broadcast) and vocabulary.
  StoreConfig config;
  std::vector<VocabEntry> vocab_entries;
  s = DecodeConfig(config_text, &config)
          ? Status::OK()
          : Status::Corruption("distributed ingest: a malformed store configuration from rank 0");
  if (s.ok())
    s = root ? (vocab_entries = store->vocab(), Status::OK())
             : ReadVocabFile(paths.vocab, &vocab_entries);
  SG_RETURN_IF_ERROR(world->Agree(s));
  const VocabIndex vocab(vocab_entries);
  const StoreWindow window(config, vocab_entries);
  std::unique_ptr<BatchCounter> counter;
  IngestOptions counting = options;
  counting.memory_bytes = work_memory;
  counting.progress = options.progress && root;
  s = Status::OK();
  std::error_code ec;
  if (!std::filesystem::create_directories(paths.Runs(rank), ec) && ec)
    s = Status::IOError(fmt::format("{}: {}", paths.Runs(rank), ec.message()));
  if (s.ok()) {
    s = BatchCounter::Create(mine, my_fingerprints, &vocab, window.config, corpus, counting,
                             threads, paths.Runs(rank), &counter);
  }
  SG_RETURN_IF_ERROR(world->Agree(s));

  // 3. Rounds, until every rank has read all its inputs: each rank counts
  // whole inputs (about --batch-size of text), merges the counts into one
  // sorted run per owner rank, sends them (stream_exchange.h), merges what
  // it received; rank 0 commits the round with its input records.
  std::vector<std::string> received_paths;
  for (int from = 0; from < ranks; ++from) received_paths.push_back(paths.Received(rank, from));
  bool my_inputs_done = mine.empty();
  uint64_t my_exchange_bytes = 0;  // pairs this rank sent, all rounds
  for (;;) {
    phase = Clock::now();
    BatchCounter::Result round;
    s = my_inputs_done ? Status::OK()
                       : counter->CountBatch(options.batch_bytes, /*whole_inputs=*/true, &round);
    // An interrupt ends the job before the round commits: the inputs of an
    // uncommitted round are read again by the rerun.
    // Rounds hold whole inputs: a round's records say exactly what it counted.
    if (s.ok() && round.any && !round.ends_input && !Interrupted())
      s = Status::IOError("distributed ingest: a round ended inside an input");
    if (s.ok() && Interrupted())
      s =
          InterruptedStatus(fmt::format("{} inputs committed; run the same command again to "
                                        "continue",
                                        stats->ingest.inputs_ingested));
    SG_RETURN_IF_ERROR(world->Agree(s));
    my_inputs_done = my_inputs_done || round.corpus_done || !round.any;
    if (world->Sum(round.any ? 1 : 0) == 0) break;
    ++stats->ingest.batches;

    OwnerRuns outgoing(paths, rank, ranks);
    BatchCounts counts;
    s = outgoing.Open();
    if (s.ok()) s = counter->FinishBatch(&counts);
    if (s.ok()) s = counter->Merge(&counts, owner_starts, &outgoing);
    if (s.ok()) counter->Clear(counts);
    SG_RETURN_IF_ERROR(world->Agree(s));
    stats->count_seconds += world->Max(SecondsSince(phase));

    phase = Clock::now();
    StreamFiles received(received_paths);
    ExchangeStats exchange;
    s = ExchangeStreams(
        world, config::kExchangeChunkBytes,
        [&](int to, StreamSink* sink) { return SendFile(outgoing.path(to), sink); },
        [&](int from, std::string_view bytes) { return received.Consume(from, bytes); }, &exchange);
    for (int k = 0; k < ranks; ++k) std::filesystem::remove(outgoing.path(k), ec);
    SG_RETURN_IF_ERROR(world->Agree(s));
    stats->pair_exchange_bytes += world->Sum(exchange.bytes_sent);
    my_exchange_bytes += exchange.bytes_sent;
    stats->exchange_seconds += world->Max(SecondsSince(phase));

    phase = Clock::now();
    uint64_t pairs = 0;
    std::vector<std::string> row_files;
    SG_RETURN_IF_ERROR(world->Agree(MergeReceived(paths, rank, stats->ingest.batches, vocab.size(),
                                                  received.written(), &row_files, &pairs)));
    stats->pairs += world->Sum(pairs);
    stats->merge_seconds += world->Max(SecondsSince(phase));

    // Rank 0 commits the ranks' files (row ranges in rank order: disjoint)
    // with the round's input records, in one step.
    phase = Clock::now();
    std::vector<std::string> reports;
    world->Gather(EncodeRoundReport(row_files, round.finished), &reports);
    s = Status::OK();
    if (root) {
      std::vector<std::string> files;
      std::vector<InputRecord> records;
      for (const std::string& report : reports) {
        if (s.ok()) s = DecodeRoundReport(report, &files, &records);
      }
      if (s.ok()) s = store->CommitBatchFiles(files, records);
      if (s.ok()) {
        stats->ingest.inputs_ingested += records.size();
        for (const InputRecord& r : records) stats->text_bytes += r.bytes;
      }
    }
    SG_RETURN_IF_ERROR(world->Agree(s));
    stats->commit_seconds += world->Max(SecondsSince(phase));
  }
  stats->max_rank_exchange_bytes = static_cast<uint64_t>(world->Max(my_exchange_bytes));
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
  if (root) {
    for (const std::string& m : counted.messages) stats->ingest.messages.push_back(m);
    if (stats->ingest.bad_records > counted.bad_records) {
      stats->ingest.messages.push_back(
          fmt::format("the other ranks skipped {} bad records",
                      stats->ingest.bad_records - counted.bad_records));
    }
  }
  counter.reset();
  // Every rank is done with the job's files before rank 0 removes them.
  return world->Agree(Status::OK());
}

}  // namespace streamglove
