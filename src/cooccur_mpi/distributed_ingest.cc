#include "cooccur_mpi/distributed_ingest.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <filesystem>
#include <map>
#include <numeric>
#include <sstream>

#include <fmt/format.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "cooccur/ingest_setup.h"
#include "cooccur/pair_buffer.h"
#include "cooccur/pair_run.h"
#include "cooccur_mpi/distributed_vocab.h"
#include "cooccur_mpi/stream_exchange.h"
#include "store/store.h"
#include "util/config.h"
#include "util/file.h"
#include "util/threads.h"

namespace streamglove {

namespace {

using Clock = std::chrono::steady_clock;
double SecondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// The files of one job under STORE/ranks.
struct JobPaths {
  explicit JobPaths(const std::string& store_dir)
      : dir(store_dir + "/" + kDistributedIngestDir),
        plan(dir + "/plan"),
        vocab(dir + "/vocab.txt") {}
  std::string RankStore(int rank) const { return fmt::format("{}/store-{}", dir, rank); }
  std::string Received(int rank, int from) const {
    return fmt::format("{}/from-{}-to-{}", dir, from, rank);
  }
  std::string Merged(int rank) const { return fmt::format("{}/merged-{}", dir, rank); }

  const std::string dir, plan, vocab;
};

// Which rank ingests which input. On disk (JobPaths::plan): "ranks N" then
// one "RANK FINGERPRINT" line per input. Broadcast whole (paths, not places
// in a listing: ranks that list a directory may not see the same files).
struct Plan {
  int ranks = 0;
  bool needs_vocabulary = false;
  std::vector<std::pair<int, InputFile>> inputs;  // (rank, input)
};

// "N NEEDS_VOCABULARY\n", then per input "RANK FORMAT SIZE PATH_BYTES PATH\n".
std::string EncodePlan(const Plan& plan) {
  std::string text = fmt::format("{} {}\n", plan.ranks, plan.needs_vocabulary ? 1 : 0);
  for (const auto& [rank, in] : plan.inputs) {
    text += fmt::format("{} {} {} {} {}\n", rank, static_cast<int>(in.format), in.size,
                        in.path.size(), in.path);
  }
  return text;
}

Plan DecodePlan(const std::string& text) {
  Plan plan;
  std::istringstream in(text);
  int needs = 0;
  in >> plan.ranks >> needs;
  plan.needs_vocabulary = needs != 0;
  int rank = 0, format = 0;
  uint64_t size = 0;
  size_t path_bytes = 0;
  while (in >> rank >> format >> size >> path_bytes && in.get() == ' ') {
    std::string path(path_bytes, '\0');
    in.read(path.data(), static_cast<std::streamsize>(path_bytes));
    plan.inputs.emplace_back(rank, InputFile{path, static_cast<InputFormat>(format), size});
  }
  return plan;
}

// Reads a recorded plan: rank of each fingerprint. *found false if none.
Status ReadRecordedPlan(const JobPaths& paths, int* ranks,
                        std::map<std::string, int>* rank_of_input, bool* found) {
  std::error_code ec;
  *found = std::filesystem::exists(paths.plan, ec);
  if (!*found) return Status::OK();
  std::string text;
  SG_RETURN_IF_ERROR(ReadFileToString(paths.plan, &text));
  std::istringstream in(text);
  std::string word;
  if (!(in >> word >> *ranks) || word != "ranks" || *ranks < 1)
    return Status::Corruption(fmt::format("{}: not a distributed ingest plan", paths.plan));
  int rank = 0;
  std::string fingerprint;
  while (in >> rank >> fingerprint) (*rank_of_input)[fingerprint] = rank;
  return Status::OK();
}

// Rank 0: opens the store, selects the inputs and makes (or resumes) the plan.
Status PlanOnRoot(const std::string& store_dir, const JobPaths& paths, int ranks,
                  const std::vector<InputFile>& inputs, const CorpusOptions& corpus,
                  const IngestOptions& options, std::unique_ptr<Store>* store, Plan* plan,
                  IngestStats* stats) {
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

  int recorded_ranks = 0;
  std::map<std::string, int> recorded;
  bool found = false;
  SG_RETURN_IF_ERROR(ReadRecordedPlan(paths, &recorded_ranks, &recorded, &found));
  if (found) {
    // A plan whose inputs are all in the store was committed (the crash
    // came before its files were removed), and one of a store without a
    // vocabulary never counted: their files are leftovers.
    bool committed = (*store)->initialized();
    for (const auto& [fingerprint, rank] : recorded) {
      InputRecord record;
      bool in_store = false;
      if (committed) SG_RETURN_IF_ERROR((*store)->FindInput(fingerprint, &record, &in_store));
      committed = committed && in_store;
    }
    std::vector<std::string> fingerprints = selected.fingerprints;
    std::sort(fingerprints.begin(), fingerprints.end());
    std::vector<std::string> planned;
    for (const auto& [fingerprint, rank] : recorded) planned.push_back(fingerprint);
    if (committed || !(*store)->initialized()) {
      recorded.clear();
    } else if (recorded_ranks != ranks || planned != fingerprints) {
      return Status::InvalidArgument(fmt::format(
          "{}: a distributed ingest of {} inputs on {} ranks was interrupted: rerun it with "
          "mpirun -np {} and the same inputs (or remove {} to drop its partial counts)",
          store_dir, planned.size(), recorded_ranks, recorded_ranks, paths.dir));
    }
  }
  if (selected.inputs.empty()) return Status::OK();

  std::vector<int> rank_of(selected.inputs.size());
  if (!recorded.empty()) {
    for (size_t j = 0; j < rank_of.size(); ++j) rank_of[j] = recorded[selected.fingerprints[j]];
  } else {
    // Largest first, each to the rank with the fewest bytes so far.
    std::vector<size_t> order(selected.inputs.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return selected.inputs[a].size > selected.inputs[b].size;
    });
    std::vector<uint64_t> load(ranks, 0);
    for (size_t j : order) {
      const int r = static_cast<int>(std::min_element(load.begin(), load.end()) - load.begin());
      rank_of[j] = r;
      load[r] += std::max<uint64_t>(selected.inputs[j].size, 1);
    }
    // Whatever an earlier job left (its files removed only in part, say)
    // must not be counted again: a new plan starts from an empty directory.
    std::error_code ec;
    std::filesystem::remove_all(paths.dir, ec);
    if (ec) return Status::IOError(fmt::format("{}: {}", paths.dir, ec.message()));
    if (!std::filesystem::create_directories(paths.dir, ec) && ec)
      return Status::IOError(fmt::format("{}: {}", paths.dir, ec.message()));
    AtomicFileWriter file;
    SG_RETURN_IF_ERROR(file.Open(paths.plan));
    SG_RETURN_IF_ERROR(file.Append(fmt::format("ranks {}\n", ranks)));
    for (size_t j = 0; j < rank_of.size(); ++j)
      SG_RETURN_IF_ERROR(file.Append(fmt::format("{} {}\n", rank_of[j], selected.fingerprints[j])));
    SG_RETURN_IF_ERROR(file.Commit());
  }
  for (size_t j = 0; j < rank_of.size(); ++j)
    plan->inputs.emplace_back(rank_of[j], selected.inputs[j]);
  return Status::OK();
}

// Rank 0: the rows' cut into `ranks` ranges ("b0 b1 ... bN"), each about
// an equal share of the distinct pairs: a row's are estimated as its word's
// count times the 2W window positions, at most the vocabulary.
std::string RowBoundaries(const std::vector<VocabEntry>& vocab, uint32_t window, int ranks) {
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
  return text + fmt::format(" {}", vocab.size());
}

// The pairs of rows [begin, end) of `store`, in the run format, into `sink`.
Status SendRows(Store* store, uint32_t begin, uint32_t end, StreamSink* sink) {
  PairRunEncoder encoder;
  std::string buffer;
  constexpr size_t kFlushBytes = size_t{64} << 10;
  SG_RETURN_IF_ERROR(
      store->ForEachPairInRows(begin, end, [&](uint32_t row, uint32_t col, uint64_t value) {
        encoder.Add(PairRecord{PairKey(row, col), value}, &buffer);
        if (buffer.size() < kFlushBytes) return Status::OK();
        Status s = sink->Write(buffer);
        buffer.clear();
        return s;
      }));
  return sink->Write(buffer);
}

// The runs received by this rank merged (summed) into one: JobPaths::Merged.
Status MergeReceived(const JobPaths& paths, int rank, const std::vector<std::string>& received,
                     uint64_t* pairs) {
  std::vector<PairRun> runs;
  for (const std::string& path : received) runs.push_back(PairRun{path, {}, UINT64_MAX});
  std::vector<std::unique_ptr<PairStream>> streams;
  for (const PairRun& run : runs) streams.push_back(NewPairRunReader(run));
  PairRun merged;
  PairRunWriter writer;
  SG_RETURN_IF_ERROR(writer.Open(paths.Merged(rank), &merged));
  SG_RETURN_IF_ERROR(MergePairStreams(std::move(streams), [&](const PairRecord& r) {
    ++*pairs;
    return writer.Add(r);
  }));
  SG_RETURN_IF_ERROR(writer.Finish());
  std::error_code ec;
  for (const std::string& path : received) std::filesystem::remove(path, ec);
  return Status::OK();
}

// "FINGERPRINT\tBYTES\tTOKENS\tPATH\n" per input of a rank's store.
std::string EncodeRecords(const std::vector<InputRecord>& records) {
  std::string text;
  for (const InputRecord& r : records)
    text += fmt::format("{}\t{}\t{}\t{}\n", r.fingerprint, r.bytes, r.tokens, r.path);
  return text;
}

Status DecodeRecords(const std::string& text, std::vector<InputRecord>* records) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    InputRecord r;
    std::istringstream fields(line);
    if (!std::getline(fields, r.fingerprint, '\t') || !(fields >> r.bytes >> r.tokens) ||
        fields.get() != '\t' || !std::getline(fields, r.path)) {
      return Status::Corruption(
          fmt::format("distributed ingest: a malformed input record from a rank: {}", line));
    }
    records->push_back(std::move(r));
  }
  return Status::OK();
}

// Rank 0: the merged runs as one batch's key ranges, committed with the
// ranks' input records.
Status CommitOnRoot(const JobPaths& paths, int ranks, int threads,
                    const std::vector<std::string>& records_by_rank, Store* store, uint64_t* inputs,
                    uint64_t* text_bytes) {
  std::vector<InputRecord> records;
  for (const std::string& text : records_by_rank) SG_RETURN_IF_ERROR(DecodeRecords(text, &records));
  std::unique_ptr<Store::Batch> batch;
  SG_RETURN_IF_ERROR(store->NewBatch(ranks, &batch));
  std::vector<Status> status(ranks);
  tbb::task_arena arena(threads);
  arena.execute([&] {
    tbb::parallel_for(0, ranks, [&](int k) {
      const PairRun run{paths.Merged(k), {}, UINT64_MAX};
      std::unique_ptr<PairStream> stream = NewPairRunReader(run);
      for (;;) {
        PairRecord r;
        bool done = false;
        status[k] = stream->Next(&r, &done);
        if (!status[k].ok() || done) break;
        status[k] = batch->Add(k, PairRow(r.key), PairCol(r.key), r.value);
        if (!status[k].ok()) break;
      }
      if (status[k].ok()) status[k] = batch->FinishRange(k);
    });
  });
  for (const Status& s : status) SG_RETURN_IF_ERROR(s);
  SG_RETURN_IF_ERROR(store->CommitBatch(std::move(batch), nullptr, records));
  *inputs = records.size();
  for (const InputRecord& r : records) *text_bytes += r.bytes;
  std::error_code ec;
  std::filesystem::remove_all(paths.dir, ec);
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
  stats->ingest.threads = std::min(ResolveThreads(options.threads), AvailableCores());
  for (const InputFile& in : inputs) {
    if (in.path == "-")
      return Status::InvalidArgument(
          "ingest reads files it can re-read to resume: save stdin to a file first");
  }
  const JobPaths paths(store_dir);

  // 1. The plan. A store this job creates is removed again if it never gets
  // a vocabulary (bad input in the vocabulary pass), as by the single-process
  // ingest.
  auto phase = Clock::now();
  std::error_code exists_ec;
  const bool created = root && !std::filesystem::exists(store_dir, exists_ec);
  std::unique_ptr<Store> store;  // rank 0's, locked until the end
  Plan plan;
  SG_RETURN_IF_ERROR(world->Agree(root ? PlanOnRoot(store_dir, paths, ranks, inputs, corpus,
                                                    options, &store, &plan, &stats->ingest)
                                       : Status::OK()));
  std::string plan_text = EncodePlan(plan);
  world->Broadcast(&plan_text);
  plan = DecodePlan(plan_text);
  std::vector<InputFile> mine;
  for (const auto& [r, input] : plan.inputs) {
    if (r == rank) mine.push_back(input);
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
    Status s;
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
      DistributedVocabStats vocab_stats;
      s = BuildDistributedVocabulary(world, mine, corpus, v, &vocab, &vocab_stats);
      stats->vocab_exchange_bytes = world->Sum(vocab_stats.exchange.bytes_sent);
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
  std::string boundaries_text;
  if (root) {
    stats->ingest.vocab_size = store->vocab().size();
    boundaries_text = RowBoundaries(store->vocab(), store->config().window, ranks);
  }
  SG_RETURN_IF_ERROR(
      world->Agree(root ? WriteVocabFile(paths.vocab, store->vocab()) : Status::OK()));
  world->Broadcast(&boundaries_text);
  std::vector<uint32_t> boundaries;
  {
    std::istringstream in(boundaries_text);
    uint32_t b = 0;
    while (in >> b) boundaries.push_back(b);
  }
  stats->vocab_seconds = world->Max(SecondsSince(phase));

  // 3. Counting, each rank into its own store.
  phase = Clock::now();
  IngestStats counted;
  Status s;
  if (!mine.empty()) {
    IngestOptions o = options;
    o.vocab_file = paths.vocab;
    o.memory_bytes = work_memory;
    o.progress = options.progress && root;
    o.force = false;  // the plan already chose what to count
    s = Ingest(paths.RankStore(rank), mine, corpus, o, &counted);
  }
  SG_RETURN_IF_ERROR(world->Agree(s));
  stats->count_seconds = world->Max(SecondsSince(phase));

  // 4. Exchange: the rows of rank k's range to rank k.
  phase = Clock::now();
  std::unique_ptr<Store> local;
  std::string records;
  if (!mine.empty()) {
    std::vector<InputRecord> list;
    s = Store::OpenForReading(paths.RankStore(rank), options.memory_bytes, &local);
    if (s.ok()) s = local->ListInputs(&list);
    records = EncodeRecords(list);
  }
  SG_RETURN_IF_ERROR(world->Agree(s));
  std::vector<std::string> received_paths;
  for (int from = 0; from < ranks; ++from) received_paths.push_back(paths.Received(rank, from));
  StreamFiles received(received_paths);
  ExchangeStats exchange;
  s = ExchangeStreams(
      world, config::kExchangeChunkBytes,
      [&](int to, StreamSink* sink) {
        return local == nullptr ? Status::OK()
                                : SendRows(local.get(), boundaries[to], boundaries[to + 1], sink);
      },
      [&](int from, std::string_view bytes) { return received.Consume(from, bytes); }, &exchange);
  local.reset();
  SG_RETURN_IF_ERROR(world->Agree(s));
  stats->pair_exchange_bytes = world->Sum(exchange.bytes_sent);
  stats->max_rank_exchange_bytes = static_cast<uint64_t>(world->Max(exchange.bytes_sent));
  stats->exchange_seconds = world->Max(SecondsSince(phase));

  // 5. Merge what this rank received.
  phase = Clock::now();
  uint64_t pairs = 0;
  SG_RETURN_IF_ERROR(world->Agree(MergeReceived(paths, rank, received.written(), &pairs)));
  stats->pairs = world->Sum(pairs);
  stats->merge_seconds = world->Max(SecondsSince(phase));

  // 6. Commit, on rank 0.
  phase = Clock::now();
  std::vector<std::string> records_by_rank;
  world->Gather(records, &records_by_rank);
  uint64_t committed_inputs = 0, text_bytes = 0;
  // On every core of rank 0's machine: the other ranks wait for this step.
  SG_RETURN_IF_ERROR(
      world->Agree(root ? CommitOnRoot(paths, ranks, AvailableCores(), records_by_rank, store.get(),
                                       &committed_inputs, &text_bytes)
                        : Status::OK()));
  stats->commit_seconds = world->Max(SecondsSince(phase));

  stats->ingest.inputs_ingested = committed_inputs;
  stats->text_bytes = text_bytes;
  stats->ingest.tokens = world->Sum(counted.tokens);
  stats->ingest.increments = world->Sum(counted.increments);
  stats->ingest.bytes_read = world->Sum(counted.bytes_read);
  stats->ingest.spilled_runs = world->Sum(counted.spilled_runs);
  stats->ingest.batches = world->Sum(counted.batches);
  stats->ingest.vocab_seconds = stats->vocab_seconds;
  stats->ingest.count_seconds = stats->count_seconds;
  stats->ingest.commit_seconds =
      stats->exchange_seconds + stats->merge_seconds + stats->commit_seconds;
  if (root) {
    for (const std::string& m : counted.messages) stats->ingest.messages.push_back(m);
  }
  return Status::OK();
}

}  // namespace streamglove
