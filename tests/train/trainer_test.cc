#include <unistd.h>
#include <zstd.h>

#include <cmath>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <random>
#include <sstream>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "store/store.h"
#include "streamglove/ingest.h"
#include "streamglove/interrupt.h"
#include "streamglove/store_info.h"
#include "streamglove/train.h"
#include "test_util.h"
#include "train/block_stream.h"
#include "train/budget_plan.h"
#include "train/train_fixture.h"
#include "util/file.h"
#include "util/file_lock.h"

using namespace streamglove;
using namespace streamglove::test;

namespace {

// A budget that leaves time to train after its four dims' measurement
// (about 2.5 s with skip-gram's n-gram rows), on a busy machine too: a run
// that trains nothing is an error.
constexpr double kBudgetPastMeasuring = 5;

std::vector<std::pair<std::string, std::vector<float>>> ParseText(const std::string& text,
                                                                  bool header) {
  std::vector<std::pair<std::string, std::vector<float>>> rows;
  std::istringstream in(text);
  std::string line;
  if (header) std::getline(in, line);
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::pair<std::string, std::vector<float>> row;
    fields >> row.first;
    for (float x; fields >> x;) row.second.push_back(x);
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace

TEST_CASE("Training with one thread and a seed is reproducible and resumes bit for bit",
          "[train]") {
  TrainFixture f;
  TrainStats stats;
  const std::string a = f.Run("a.txt", f.Options(), &stats);
  REQUIRE(stats.epochs.size() == 4);
  CHECK(stats.blocks_built == true);
  CHECK(stats.epochs.back().loss < stats.epochs.front().loss);  // it learns
  const std::string b = f.Run("b.txt", f.Options(), &stats);
  CHECK_FALSE(stats.blocks_built);  // the block stream is reused
  CHECK(a == b);

  // Stopped after 2 epochs, then resumed to 4: as if never stopped. (A run
  // whose steps decay towards its end depends on its length, so this holds
  // without the decay; with it a checkpoint resumes only as long a run.)
  TrainOptions constant = f.Options();
  constant.decay_fraction = 0;
  const std::string a4 = f.Run("a4.txt", constant, &stats);
  TrainOptions two = constant;
  two.epochs = 2;
  f.Run("c.txt", two, &stats);
  TrainOptions resume = constant;
  resume.resume = true;
  const std::string c = f.Run("c.txt", resume, &stats);
  CHECK(stats.start_epoch == 2);
  CHECK(stats.epochs.size() == 2);
  CHECK(c == a4);
  TrainOptions decaying = f.Options();
  decaying.epochs = 2;
  f.Run("e.txt", decaying, &stats);
  decaying.epochs = 4;
  decaying.resume = true;
  const Status refused = Train(f.store, f.dir.path() + "/e.txt", decaying, &stats);
  CHECK(refused.ToString().find("other hyperparameters") != std::string::npos);

  TrainOptions other_seed = f.Options();
  other_seed.seed = 6;
  CHECK(f.Run("d.txt", other_seed, &stats) != a);
}

TEST_CASE("GloVe text and word2vec text and binary hold the same vectors", "[train]") {
  TrainFixture f;
  TrainStats stats;
  TrainOptions o = f.Options();
  o.epochs = 2;
  const auto glove = ParseText(f.Run("v.txt", o, &stats), false);
  o.format = VectorsFormat::kWord2VecText;
  const auto w2v_text = ParseText(f.Run("v.w2v.txt", o, &stats), true);
  o.format = VectorsFormat::kWord2VecBinary;
  const std::string binary = f.Run("v.bin", o, &stats);
  REQUIRE(glove.size() == stats.vocab_size);
  REQUIRE(w2v_text.size() == glove.size());
  CHECK(binary.substr(0, binary.find('\n')) == fmt::format("{} {}", glove.size(), o.dim));
  size_t pos = binary.find('\n') + 1;
  for (size_t i = 0; i < glove.size(); ++i) {
    CHECK(w2v_text[i].first == glove[i].first);
    CHECK(w2v_text[i].second == glove[i].second);
    const size_t space = binary.find(' ', pos);
    REQUIRE(binary.substr(pos, space - pos) == glove[i].first);
    std::vector<float> v(o.dim);
    std::memcpy(v.data(), binary.data() + space + 1, o.dim * sizeof(float));
    for (uint32_t k = 0; k < o.dim; ++k)
      CHECK(std::abs(v[k] - glove[i].second[k]) <= 1e-6f);  // text keeps 6 decimals
    pos = space + 1 + o.dim * sizeof(float) + 1;
  }
  CHECK(pos == binary.size());
}

TEST_CASE(
    "A resume after a crash between checkpoints retrains the lost epochs and relogs them once",
    "[train]") {
  TrainFixture f;
  TrainStats stats;
  // The crash is simulated by a 2-epoch run, so the schedule must not depend
  // on the run's length (tests/train/crash_resume_test.sh kills real runs).
  TrainOptions constant = f.Options();
  constant.decay_fraction = 0;
  const std::string a = f.Run("a.txt", constant, &stats);

  // Checkpoints every 2 epochs: a run killed during epoch 4 after logging
  // epoch 3 resumes from epoch 2's checkpoint.
  TrainOptions two = constant;
  two.epochs = 2;
  two.checkpoint_every = 2;
  f.Run("b.txt", two, &stats);
  {
    std::ofstream log(f.dir.path() + "/b.txt.log.tsv", std::ios::app);
    log << "3\t9.9\t1.0\t1\t0\n";  // logged before the crash, not checkpointed
  }
  TrainOptions resume = constant;
  resume.checkpoint_every = 2;
  resume.resume = true;
  CHECK(f.Run("b.txt", resume, &stats) == a);
  CHECK(stats.start_epoch == 2);
  std::istringstream log(ReadFile(f.dir.path() + "/b.txt.log.tsv"));
  std::string line;
  std::vector<unsigned long> epochs;
  for (std::getline(log, line); std::getline(log, line);) epochs.push_back(std::stoul(line));
  CHECK(epochs == std::vector<unsigned long>{1, 2, 3, 4});
  CHECK(ReadFile(f.dir.path() + "/b.txt.log.tsv").find("9.9") == std::string::npos);
}

TEST_CASE("A zstd-compressed block stream trains exactly as a raw one", "[train]") {
  TrainFixture f;
  TrainStats stats;
  TrainOptions raw = f.Options();
  raw.block_compression = BlockCompression::kNone;
  const std::string a = f.Run("a.txt", raw, &stats);
  CHECK(std::filesystem::exists(f.store + "/blocks/block-00000"));
  const uint64_t raw_bytes = std::filesystem::file_size(f.store + "/blocks/block-00000");

  TrainOptions zstd = f.Options();
  zstd.block_compression = BlockCompression::kZstd;
  CHECK(f.Run("b.txt", zstd, &stats) == a);
  CHECK(stats.blocks_built);  // rebuilt: the stream was raw
  CHECK_FALSE(std::filesystem::exists(f.store + "/blocks/block-00000"));
  CHECK(std::filesystem::file_size(f.store + "/blocks/block-00000.zst") < raw_bytes * 3 / 4);
  // Written compressed as it is built: one frame per 32 KiB of records.
  const std::string compressed = ReadFile(f.store + "/blocks/block-00000.zst");
  size_t frames = 0;
  for (size_t at = 0; at < compressed.size(); ++frames) {
    const size_t n = ZSTD_findFrameCompressedSize(compressed.data() + at, compressed.size() - at);
    REQUIRE_FALSE(ZSTD_isError(n));
    at += n;
  }
  CHECK(frames == (raw_bytes + (32 << 10) - 1) / (32 << 10));
  // Auto takes the stream as it is.
  TrainOptions automatic = f.Options();
  CHECK(f.Run("c.txt", automatic, &stats) == a);
  CHECK_FALSE(stats.blocks_built);
}

TEST_CASE(
    "SGNS with one thread is reproducible and learns and a GloVe checkpoint does not resume it",
    "[train][sgns]") {
  TrainFixture f;
  TrainStats stats;
  TrainOptions sgns = f.Options();
  sgns.objective = Objective::kSgns;
  sgns.subsample = 1e-3;
  const std::string a = f.Run("a.txt", sgns, &stats);
  REQUIRE(stats.epochs.size() == 4);
  CHECK(stats.epochs.front().updates > 0);
  CHECK(stats.epochs.back().loss < stats.epochs.front().loss);
  CHECK(f.Run("b.txt", sgns, &stats) == a);
  TrainOptions other_seed = sgns;
  other_seed.seed = 6;
  CHECK(f.Run("c.txt", other_seed, &stats) != a);

  f.Run("g.txt", f.Options(), &stats);  // GloVe, same vocabulary and dim
  TrainOptions resume = sgns;
  resume.resume = true;
  const Status s = Train(f.store, f.dir.path() + "/g.txt", resume, &stats);
  CHECK(s.ToString().find("other hyperparameters") != std::string::npos);
}

TEST_CASE("Train's memory budget holds the parameters first and refuses one that cannot",
          "[train]") {
  TrainFixture f;
  TrainStats stats;
  TrainOptions probe = f.Options();
  probe.epochs = 1;
  f.Run("probe.txt", probe, &stats);
  const size_t vocab = stats.vocab_size;
  // dim 512: rows of 528 floats; GloVe keeps 4 arrays of them, SGNS 2.
  const size_t sgns_bytes = 2 * vocab * 528 * sizeof(float), glove_bytes = 2 * sgns_bytes;
  TrainOptions glove = f.Options();
  glove.dim = 512;
  glove.epochs = 1;
  glove.memory_bytes = (size_t{32} << 20) + (sgns_bytes + glove_bytes) / 2;  // blocks need 32 MiB
  const Status s = Train(f.store, f.dir.path() + "/glove.txt", glove, &stats);
  INFO(s.ToString());
  CHECK(s.ToString().find("cannot hold the parameters") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(f.dir.path() + "/glove.txt"));
  TrainOptions sgns = glove;
  sgns.objective = Objective::kSgns;
  sgns.subwords.chosen = true;  // words as atoms: the words' rows alone
  CHECK(Train(f.store, f.dir.path() + "/sgns.txt", sgns, &stats).ok());
}

TEST_CASE(
    "A block stream of one and a half blocks' bytes is cut into blocks that its next run reuses",
    "[train]") {
  TrainFixture f;
  std::unique_ptr<Store> store;
  REQUIRE(Store::OpenForReading(f.store, 64 << 20, &store).ok());
  const RankedVocab vocab(store->config(), store->vocab(), 1, 0);
  const std::string dir = f.dir.path() + "/blocks";
  BlockStreamInfo info;
  REQUIRE(OpenBlockStream(store.get(), dir, vocab, size_t{1} << 30, BlockLayout::kRandom,
                          BlockCompression::kNone, &info)
              .ok());
  const uint64_t stream_bytes = info.pairs * sizeof(PairRecord32);
  // Blocks asked for at 1/1.3 of the stream: one block would hold 1.3 times
  // that, more than the reuse check allows (1.25), so the stream must be cut
  // into two, or every later run rebuilds it.
  const auto block_bytes = static_cast<size_t>(static_cast<double>(stream_bytes) / 1.3);
  REQUIRE(OpenBlockStream(store.get(), dir, vocab, block_bytes, BlockLayout::kRandom,
                          BlockCompression::kNone, &info)
              .ok());
  CHECK(info.built);
  CHECK(info.block_records.size() >= 2);
  REQUIRE(OpenBlockStream(store.get(), dir, vocab, block_bytes, BlockLayout::kRandom,
                          BlockCompression::kNone, &info)
              .ok());
  CHECK_FALSE(info.built);
}

TEST_CASE("SGNS on a store subsampled before windowing trains its counts as they are",
          "[train][sgns]") {
  TrainFixture f;
  std::vector<InputFile> inputs;
  REQUIRE(ExpandInputs({f.dir.path() + "/corpus.txt"}, InputFormat::kAuto, &inputs).ok());
  IngestOptions io;
  io.min_count = 2;
  io.memory_bytes = 128 << 20;
  io.progress = false;
  io.weighting = DistanceWeighting::kLinear;
  io.subsample = 1e-3;
  const std::string subsampled = f.dir.path() + "/subsampled";
  IngestStats istats;
  REQUIRE(Ingest(subsampled, inputs, CorpusOptions(), io, &istats).ok());

  TrainOptions o = f.Options();
  o.objective = Objective::kSgns;
  o.subsample = 1e-3;
  o.epochs = 1;
  for (const auto& [store, subsampled_store] :
       {std::pair{subsampled, true}, std::pair{f.store, false}}) {
    INFO(store);
    StoreStats counts;
    REQUIRE(ComputeStoreStats(store, 64 << 20, &counts).ok());
    TrainStats stats;
    REQUIRE(Train(store, f.dir.path() + "/v.txt", o, &stats).ok());
    const double updates = static_cast<double>(stats.epochs.at(0).updates);
    if (subsampled_store) {
      // The counts hold the subsampling: about one positive update per unit
      // of count (stochastic rounding), none dropped again.
      CHECK(stats.store_subsample == 1e-3);
      CHECK(updates == Approx(counts.sum_of_counts).epsilon(0.02));
    } else {
      CHECK(stats.store_subsample == 0);
      CHECK(updates < 0.8 * counts.sum_of_counts);
    }
  }
}

TEST_CASE("Skip-gram's default rate follows the store and the epochs, and a given rate wins",
          "[train][sgns]") {
  TrainFixture f;
  IngestOptions subsampled;
  subsampled.subsample = 1e-3;
  const std::string subsampled_store = f.IngestCorpus("subsampled-rate", subsampled);
  TrainOptions o = f.Options();
  o.objective = Objective::kSgns;
  o.epochs = 1;
  TrainStats stats;
  // word2vec's windows make about word2vec's updates an epoch: its rate for
  // 10 epochs or more, larger steps for fewer; the pair store, whose pairs
  // the trainer subsamples, a larger one whatever the epochs.
  REQUIRE(Train(subsampled_store, f.dir.path() + "/a.txt", o, &stats).ok());
  CHECK(stats.eta == DefaultEta(Objective::kSgns, true, 1));
  REQUIRE(Train(f.store, f.dir.path() + "/b.txt", o, &stats).ok());
  CHECK(stats.eta == DefaultEta(Objective::kSgns, false, 1));
  for (uint32_t epochs : {1u, 2u, 5u, 7u, 10u, 20u, 100u}) {
    INFO("epochs " << epochs);
    const double want = epochs >= 10 ? 0.025 : std::min(0.05, 0.25 / epochs);
    CHECK(DefaultEta(Objective::kSgns, true, epochs) == Approx(want));
    CHECK(DefaultEta(Objective::kSgns, true, epochs) < DefaultEta(Objective::kSgns, false, epochs));
    CHECK(DefaultEta(Objective::kGlove, false, epochs) == DefaultEta(Objective::kGlove, false, 1));
  }
  o.epochs = 7;
  REQUIRE(Train(subsampled_store, f.dir.path() + "/d.txt", o, &stats).ok());
  CHECK(stats.eta == Approx(0.25 / 7));
  o.eta = 0.01;
  REQUIRE(Train(subsampled_store, f.dir.path() + "/c.txt", o, &stats).ok());
  CHECK(stats.eta == 0.01);
}

TEST_CASE("A budget trains skip-gram on a store subsampled before windowing, whatever its window",
          "[train][budget]") {
  TrainFixture f;
  IngestOptions wide;
  wide.window = 15;
  IngestOptions wide_subsampled = wide;
  wide_subsampled.subsample = 1e-3;
  TrainOptions o = f.Options();
  o.budget_seconds = kBudgetPastMeasuring;
  TrainStats stats;
  REQUIRE(Train(f.IngestCorpus("wide", wide), f.dir.path() + "/g.txt", o, &stats).ok());
  CHECK(stats.objective == Objective::kGlove);  // window 15: GloVe's counts
  const std::string subsampled_store = f.IngestCorpus("wide-subsampled", wide_subsampled);
  REQUIRE(Train(subsampled_store, f.dir.path() + "/s.txt", o, &stats).ok());
  CHECK(stats.store_subsample == 1e-3);
  CHECK(stats.objective == Objective::kSgns);  // word2vec's windows
  // The rate of the objective and epochs it chose (before a replan changed
  // them as it ran), kept in its plan.
  if (!stats.budget_replanned)
    CHECK(stats.eta == DefaultEta(Objective::kSgns, true, stats.epochs_planned));
  BudgetPlan plan;
  REQUIRE(ReadBudgetPlan(f.dir.path() + "/s.txt.plan", &plan).ok());
  CHECK(plan.eta == stats.eta);
  // A plan shortened as it ran keeps the rate it started with: a resume
  // trains that rate, not the default of the shorter plan.
  const uint32_t other_epochs = plan.eta == DefaultEta(Objective::kSgns, true, 4) ? 20 : 4;
  REQUIRE(DefaultEta(Objective::kSgns, true, other_epochs) != plan.eta);
  plan.epochs = other_epochs;
  REQUIRE(WriteBudgetPlan(f.dir.path() + "/s.txt.plan", plan).ok());
  o.resume = true;
  TrainStats resumed;
  const Status s = Train(subsampled_store, f.dir.path() + "/s.txt", o, &resumed);
  REQUIRE(s.ok());
  CHECK(resumed.budget_resumed);
  CHECK(resumed.eta == plan.eta);
  // A plan written before it held the rate resumes at the default of the
  // time, a full run's, whatever its epochs: the run trained that rate if
  // its plan had 10 epochs or more, and its checkpoint is refused if not.
  WriteFile(f.dir.path() + "/s.txt.plan",
            fmt::format("objective\tsgns\ndim\t{}\nepochs\t4\nx_max\t{}\n", plan.dim, plan.x_max));
  const Status old = Train(subsampled_store, f.dir.path() + "/s.txt", o, &resumed);
  if (plan.eta == DefaultEta(Objective::kSgns, true, kBudgetMaxEpochs)) {
    REQUIRE(old.ok());
    CHECK(resumed.eta == plan.eta);
  } else {
    CHECK_FALSE(old.ok());
  }
}

TEST_CASE("A budget plans from the store, trains its plan, and a resume finishes the plan it wrote",
          "[train][budget]") {
  TrainFixture f;  // window 10: the budget's objective is skip-gram
  TrainStats stats;
  TrainOptions o = f.Options();
  o.budget_seconds = kBudgetPastMeasuring;
  o.epochs = 999;  // ignored with a budget
  // Random blocks: this small store's epoch is then one part (below).
  o.schedule = TrainSchedule::kHogwild;
  const std::string vectors = f.Run("b.txt", o, &stats);
  REQUIRE(stats.budget_planned);
  CHECK_FALSE(stats.budget_resumed);
  CHECK(stats.objective == Objective::kSgns);
  CHECK(stats.epochs.size() == stats.epochs_planned);
  CHECK(stats.epochs_planned >= 1);
  CHECK(stats.epochs_planned <= kBudgetMaxEpochs);
  CHECK(stats.budget_rates.find("dim 300") != std::string::npos);  // every dim measured
  const auto rows = ParseText(vectors, false);
  REQUIRE_FALSE(rows.empty());
  CHECK(rows.front().second.size() == stats.dim);
  BudgetPlan plan;
  REQUIRE(ReadBudgetPlan(f.dir.path() + "/b.txt.plan", &plan).ok());
  CHECK(plan.objective == Objective::kSgns);
  CHECK(plan.dim == stats.dim);
  CHECK(plan.epochs == stats.epochs_planned);
  CHECK_FALSE(std::filesystem::exists(f.dir.path() + "/b.txt.checkpoint.measure"));

  // A resume reads the plan instead of measuring again: it finds every
  // planned epoch in the checkpoint and writes the same vectors (one thread).
  TrainOptions resume = o;
  resume.resume = true;
  CHECK(f.Run("b.txt", resume, &stats) == vectors);
  CHECK(stats.budget_resumed);
  CHECK(stats.start_epoch == plan.epochs);
  CHECK(stats.epochs.empty());
  // The plan is what it resumes: another dim's checkpoint does not fit it...
  BudgetPlan other = plan;
  other.dim = plan.dim == 50 ? 100 : 50;
  REQUIRE(WriteBudgetPlan(f.dir.path() + "/b.txt.plan", other).ok());
  Status s = Train(f.store, f.dir.path() + "/b.txt", resume, &stats);
  CHECK(s.ToString().find(fmt::format("this run has {} x {}", stats.vocab_size, other.dim)) !=
        std::string::npos);
  // ...and a checkpoint without its plan is an error naming the plan.
  std::filesystem::remove(f.dir.path() + "/b.txt.plan");
  s = Train(f.store, f.dir.path() + "/b.txt", resume, &stats);
  CHECK(s.ToString().find("b.txt.plan") != std::string::npos);

  // A plan that ends in part of an epoch trains a share of its records
  // (its parts' first buckets, each a uniform sample of the part): here one
  // epoch more than the checkpoint holds, planned at 40%. The share is
  // refitted to the time left after each part (RefitLastEpochShare; this
  // small store's one part ends it at once, so it stays partial), so what it
  // trains is at least the plan's, less than the whole epoch here, and what
  // the run reports.
  BudgetPlan partial = plan;
  partial.epochs = plan.epochs + 1;
  partial.last_epoch_share = 0.4;
  REQUIRE(WriteBudgetPlan(f.dir.path() + "/b.txt.plan", partial).ok());
  REQUIRE(Train(f.store, f.dir.path() + "/b.txt", resume, &stats).ok());
  REQUIRE(stats.epochs.size() == 1);
  CHECK(stats.epochs[0].pairs >= 0.39 * stats.pairs);
  CHECK(stats.epochs[0].pairs < stats.pairs);  // a partial epoch, not the whole
  CHECK(stats.last_epoch_share ==
        Approx(static_cast<double>(stats.epochs[0].pairs) / stats.pairs).margin(0.01));
  CHECK(ReadFile(f.dir.path() + "/b.txt") != vectors);  // trained on from the checkpoint
}

TEST_CASE("A budget keeps the settings given and chooses the rest", "[train][budget]") {
  TrainFixture f;
  TrainStats stats;
  TrainOptions o = f.Options();
  o.budget_seconds = 2;
  o.objective = Objective::kGlove;
  o.budget_choices.objective = false;
  o.dim = 24;
  o.budget_choices.dim = false;
  o.x_max = 7;
  o.budget_choices.x_max = false;
  f.Run("g.txt", o, &stats);
  CHECK(stats.objective == Objective::kGlove);
  CHECK(stats.dim == 24);
  CHECK(stats.budget_rates.find("dim 24") != std::string::npos);
  CHECK(stats.budget_rates.find("dim 50") == std::string::npos);
  BudgetPlan plan;
  REQUIRE(ReadBudgetPlan(f.dir.path() + "/g.txt.plan", &plan).ok());
  CHECK(plan.x_max == 7);
  CHECK(plan.epochs == stats.epochs.size());
}

TEST_CASE("A warm start takes an earlier run's rows word by word and new words start fresh",
          "[train]") {
  TrainFixture f;
  TrainStats stats;
  const auto earlier = ParseText(f.Run("a.txt", f.Options(), &stats), false);  // min-count 2
  std::map<std::string, std::vector<float>> by_word(earlier.begin(), earlier.end());
  // So small a rate that one epoch leaves every row where it started.
  TrainOptions o = f.Options();
  o.epochs = 1;
  o.eta = 1e-12;
  o.warm_start = f.dir.path() + "/a.txt";
  for (uint64_t min_count : {5, 1}) {  // fewer words (other ranks), then more
    o.min_count = min_count;
    const auto warm = ParseText(f.Run(fmt::format("warm-{}.txt", min_count), o, &stats), false);
    uint32_t kept = 0, fresh_differ = 0;
    for (const auto& [word, v] : warm) {
      const auto it = by_word.find(word);
      if (it == by_word.end()) {
        fresh_differ += v != warm.front().second;
        continue;
      }
      ++kept;
      REQUIRE(v.size() == it->second.size());
      for (size_t k = 0; k < v.size(); ++k) CHECK(v[k] == Approx(it->second[k]).margin(1e-5));
    }
    CHECK(stats.warm_words == kept);
    CHECK(kept == std::min(warm.size(), earlier.size()));
    if (min_count == 1) CHECK(fresh_differ == warm.size() - kept);
  }
  // Another dim is refused, naming the checkpoint.
  o.dim = 8;
  const Status s = Train(f.store, f.dir.path() + "/bad.txt", o, &stats);
  CHECK(s.ToString().find("a.txt.checkpoint") != std::string::npos);
  // A vectors file whose words are not its checkpoint's rows (one of the two
  // written by another run since) is refused: here its first two words swap.
  o.dim = f.Options().dim;
  const std::string vectors = f.dir.path() + "/a.txt";
  std::string text = ReadFile(vectors);
  const size_t first_end = text.find(' '), second = text.find('\n') + 1;
  const size_t second_end = text.find(' ', second);
  const std::string first_word = text.substr(0, first_end);
  const std::string second_word = text.substr(second, second_end - second);
  REQUIRE(first_word != second_word);
  text = second_word + text.substr(first_end, second - first_end) + first_word +
         text.substr(second_end);
  WriteFile(vectors, text);
  const Status swapped = Train(f.store, f.dir.path() + "/swapped.txt", o, &stats);
  CHECK(swapped.message().find("a.txt.checkpoint: its rows are other words") != std::string::npos);
}

TEST_CASE("A second training of a store is refused while one runs", "[train]") {
  TrainFixture f;
  // Another training holds the block stream's lock (a FileLock of the same
  // file is refused within one process too).
  std::unique_ptr<FileLock> other;
  REQUIRE(FileLock::Acquire(f.store + "/" + kBlockStreamLockFile, "other", false, &other).ok());
  TrainStats stats;
  const std::string out = f.dir.path() + "/v.txt";
  const Status s = Train(f.store, out, f.Options(), &stats);
  CHECK(s.code() == Status::Code::kBusy);
  CHECK(s.message() ==
        fmt::format("{}: another training of this store is running (it reads blocks/) (pid {})",
                    f.store, ::getpid()));
  CHECK_FALSE(PathExists(out));
  other.reset();
  f.Run("v.txt", f.Options(), &stats);
}

TEST_CASE("A run that trained nothing fails and writes no vectors", "[train]") {
  TrainFixture f;
  const std::string out = f.dir.path() + "/v.txt";
  TrainStats stats;
  const auto refused = [&](const TrainOptions& o, const std::string& why) {
    const Status s = Train(f.store, out, o, &stats);
    INFO(s.ToString());
    CHECK(s.code() == Status::Code::kInvalidArgument);
    CHECK(s.message().find(why) != std::string::npos);
    CHECK_FALSE(PathExists(out));
  };
  SECTION("every GloVe update skipped as non-finite") {
    TrainOptions o = f.Options();
    o.eta = 1e30;
    refused(o, "was skipped as non-finite (NaN or Inf), so no vectors were written");
    CHECK(stats.epochs.back().skipped == stats.epochs.back().updates);
  }
  SECTION("skip-gram's parameters overflowed") {
    TrainOptions o = f.Options();
    o.objective = Objective::kSgns;
    o.eta = 1e30;
    refused(o, "training diverged");
  }
  SECTION("a budget spent before the first update") {
    TrainOptions o = f.Options();
    o.budget_seconds = 1e-6;
    refused(o, "nothing was trained, so no vectors were written: the");
  }
}

TEST_CASE("Options that cannot train are refused before anything runs", "[train]") {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const double bad : {inf, -inf, nan}) {
    TrainOptions o;
    o.eta = bad;
    CHECK(ValidateTrainOptions(o).message().find("--eta must be a positive number") == 0);
    o = TrainOptions();
    o.x_max = bad;
    CHECK(ValidateTrainOptions(o).message() == "--x-max must be a positive number");
    o = TrainOptions();
    o.alpha = bad;
    CHECK(ValidateTrainOptions(o).message() == "--alpha must be a positive number");
    o = TrainOptions();
    o.budget_seconds = bad;
    CHECK(ValidateTrainOptions(o).message() == "--budget must be a positive duration");
  }
  CHECK(ValidateTrainOptions(TrainOptions()).ok());
}

TEST_CASE("Subword training is reproducible, resumes bit for bit and warm-starts its n-gram rows",
          "[train][subwords]") {
  TrainFixture f;
  TrainStats stats;
  for (const Objective objective : {Objective::kGlove, Objective::kSgns}) {
    INFO(ObjectiveName(objective));
    TrainOptions o = f.Options();
    o.objective = objective;
    o.subwords.chosen = o.subwords.enabled = true;
    o.subwords.buckets = 5000;
    const std::string name = ObjectiveName(objective);
    const std::string a = f.Run(name + "-a.txt", o, &stats);
    CHECK(stats.subword_buckets == 5000);
    // "<w123>" has 4 + 3 + 2 + 1 n-grams of 3 to 6 characters; the words
    // are w0 to w799, of 2 to 4 characters.
    CHECK(stats.subword_ngrams > 3 * stats.vocab_size);
    CHECK(std::filesystem::exists(f.dir.path() + "/" + name + "-a.txt.model"));
    CHECK(f.Run(name + "-b.txt", o, &stats) == a);
    TrainOptions words = o;
    words.subwords.enabled = false;  // chosen: on above
    CHECK(f.Run(name + "-words.txt", words, &stats) != a);
    CHECK_FALSE(std::filesystem::exists(f.dir.path() + "/" + name + "-words.txt.model"));

    // Interrupted (SIGINT) once epoch 2's checkpoint is written, then resumed.
    TrainOptions stopped = o;
    stopped.on_epoch = [](const TrainStats&, const EpochStats& e) {
      if (e.epoch == 2) std::raise(SIGINT);
    };
    {
      ScopedInterruptHandlers handlers;
      CHECK(Train(f.store, f.dir.path() + "/" + name + "-c.txt", stopped, &stats).code() ==
            Status::Code::kInterrupted);
    }
    TrainOptions resume = o;
    resume.resume = true;
    CHECK(f.Run(name + "-c.txt", resume, &stats) == a);
    CHECK(stats.start_epoch == 2);
    // Other buckets are another run: its checkpoint is not resumed.
    TrainOptions other = resume;
    other.subwords.buckets = 4000;
    const Status refused = Train(f.store, f.dir.path() + "/" + name + "-c.txt", other, &stats);
    CHECK(refused.ToString().find("other hyperparameters") != std::string::npos);

    // A warm start with so small a rate that nothing moves gives the
    // earlier vectors back: word rows and n-gram rows were both taken.
    TrainOptions warm = o;
    warm.epochs = 1;
    warm.eta = 1e-12;
    warm.warm_start = f.dir.path() + "/" + name + "-a.txt";
    const auto earlier = ParseText(a, false),
               again = ParseText(f.Run(name + "-w.txt", warm, &stats), false);
    REQUIRE(earlier.size() == again.size());
    for (size_t i = 0; i < earlier.size(); ++i) {
      REQUIRE(earlier[i].first == again[i].first);
      for (size_t k = 0; k < earlier[i].second.size(); ++k)
        CHECK(again[i].second[k] == Approx(earlier[i].second[k]).margin(1e-5));
    }
    // Without the n-gram rows (another bucket count) it is refused.
    warm.subwords.buckets = 4000;
    const Status s = Train(f.store, f.dir.path() + "/bad.txt", warm, &stats);
    CHECK(s.ToString().find("n-gram rows") != std::string::npos);
  }
}

TEST_CASE("Subword buckets take at most half of --memory unless given", "[train][subwords]") {
  TrainFixture f;
  TrainStats stats;
  TrainOptions o = f.Options();
  o.epochs = 1;
  o.subwords.chosen = o.subwords.enabled = true;
  // As many buckets as the words have n-grams, when the memory holds them.
  f.Run("auto.txt", o, &stats);
  CHECK(stats.subword_buckets == stats.subword_ngrams);
  // dim 512: rows of 528 floats; GloVe's n-grams keep rows and sums, 4,224
  // bytes a bucket. They get half of what the smallest blocks (32 MiB), the
  // words' rows (4 x 799 x 2,112 bytes) and the index (under 100 KiB) leave.
  o.dim = 512;
  o.memory_bytes = 48 << 20;
  f.Run("auto-48m.txt", o, &stats);
  const size_t half = ((48 << 20) - (32 << 20) - 4 * 799 * 2112) / 2;
  CHECK(stats.subword_buckets < stats.subword_ngrams);
  CHECK(stats.subword_buckets * size_t{4224} <= half);
  CHECK(stats.subword_buckets * size_t{4224} > half - (100 << 10));
  o.dim = 16;
  // Given buckets that the memory cannot hold are refused, naming it.
  o.memory_bytes = 64 << 20;
  o.subwords.buckets = 400000;  // 100 MB
  const Status s = Train(f.store, f.dir.path() + "/big.txt", o, &stats);
  CHECK(s.ToString().find("--memory 64.0 MiB cannot hold the parameters") != std::string::npos);
}

TEST_CASE("Subword options that cannot train are refused before anything runs",
          "[train][subwords]") {
  TrainOptions o;
  o.subwords.chosen = o.subwords.enabled = true;
  CHECK(ValidateTrainOptions(o).ok());
  o.subwords.min_n = 7;
  CHECK(ValidateTrainOptions(o).message().find("--minn 7 --maxn 6") == 0);
  o = TrainOptions();
  o.subwords.chosen = o.subwords.enabled = true;
  o.device = TrainDevice::kCuda;
  CHECK(ValidateTrainOptions(o).message().find("--device cuda trains words as atoms") == 0);
  o.device = TrainDevice::kCpu;
  o.vectors = VectorsKind::kBoth;
  CHECK(ValidateTrainOptions(o).message().find("--vectors both") == 0);
  o.subwords.enabled = false;
  CHECK(ValidateTrainOptions(o).ok());
  // Not chosen: on for skip-gram on the CPU alone, and never refused.
  for (const TrainDevice device : {TrainDevice::kCpu, TrainDevice::kCuda}) {
    for (const Objective objective : {Objective::kGlove, Objective::kSgns}) {
      for (const VectorsKind kind : {VectorsKind::kWordPlusContext, VectorsKind::kBoth}) {
        o = TrainOptions();
        o.device = device;
        o.objective = objective;
        o.vectors = kind;
        CHECK(ValidateTrainOptions(o).ok());
        ResolveSubwords(&o);
        CHECK(o.subwords.enabled == (device == TrainDevice::kCpu && objective == Objective::kSgns &&
                                     kind != VectorsKind::kBoth));
      }
    }
  }
}

TEST_CASE("Defaults that depend on subwords follow them, and a weight needs word+context",
          "[train][subwords]") {
  for (const bool subwords : {false, true}) {
    TrainOptions o;
    o.objective = Objective::kSgns;
    o.subwords.chosen = true;
    o.subwords.enabled = subwords;
    REQUIRE(ValidateTrainOptions(o).ok());
    ResolveSubwords(&o);
    CHECK(*o.vectors == VectorsKind::kWordPlusContext);
    CHECK(*o.context_weight == (subwords ? 0.2f : 1.0f));
    CHECK(*o.noise_power == (subwords ? 0.5 : 0.75));
    // Given values stay.
    o = TrainOptions();
    o.objective = Objective::kSgns;
    o.subwords.chosen = true;
    o.subwords.enabled = subwords;
    o.context_weight = 0.7f;
    o.noise_power = 0.25;
    REQUIRE(ValidateTrainOptions(o).ok());
    ResolveSubwords(&o);
    CHECK(*o.context_weight == 0.7f);
    CHECK(*o.noise_power == 0.25);
  }
  // GloVe's subword model keeps its input vectors, as measured.
  TrainOptions o;
  o.subwords.chosen = o.subwords.enabled = true;
  ResolveSubwords(&o);
  CHECK(*o.vectors == VectorsKind::kWord);
  // ... unless a weight given asks for the context rows it weighs.
  o = TrainOptions();
  o.subwords.chosen = o.subwords.enabled = true;
  o.context_weight = 0.5f;
  ResolveSubwords(&o);
  CHECK(*o.vectors == VectorsKind::kWordPlusContext);
  CHECK(*o.context_weight == 0.5f);
  o = TrainOptions();
  o.context_weight = 0.5f;
  o.vectors = VectorsKind::kWord;
  CHECK(ValidateTrainOptions(o).message().find("--context-weight weighs") == 0);
  o.vectors = VectorsKind::kWordPlusContext;
  CHECK(ValidateTrainOptions(o).ok());
  for (const float bad :
       {-0.1f, std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()}) {
    o.context_weight = bad;
    CHECK(ValidateTrainOptions(o).message().find("--context-weight must be") == 0);
  }
  o = TrainOptions();
  o.noise_power = 1.5;
  CHECK(ValidateTrainOptions(o).message().find("--noise-power must be") == 0);
}
