#include "store/store.h"

#include <unistd.h>

#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <thread>
#include <tuple>

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <rocksdb/db.h>

#include "store/pair_block.h"
#include "store/pair_block_merge_operator.h"
#include "store/ranked_vocab.h"
#include "streamglove/store_info.h"
#include "test_util.h"
#include "util/coding.h"
#include "util/file.h"

using namespace streamglove;
using namespace streamglove::test;

namespace {

constexpr size_t kMemory = size_t{64} << 20;

using Pairs = std::map<std::pair<uint32_t, uint32_t>, uint64_t>;

std::vector<VocabEntry> TestVocab() { return {{"the", 40}, {"of", 30}, {"naïve", 2}, {"x\ty", 1}}; }

std::unique_ptr<Store> OpenOrDie(const std::string& dir, bool create) {
  std::unique_ptr<Store> store;
  const Status s = Store::Open(dir, kMemory, create, &store);
  INFO(s.ToString());
  REQUIRE(s.ok());
  return store;
}

// Words "w0", "w1", ...
std::vector<VocabEntry> NumberedVocab(size_t n) {
  std::vector<VocabEntry> vocab;
  for (size_t i = 0; i < n; ++i) vocab.push_back({fmt::format("w{}", i), n - i});
  return vocab;
}

std::unique_ptr<Store> NewInitializedStore(const std::string& dir,
                                           const std::vector<VocabEntry>& vocab = TestVocab()) {
  std::unique_ptr<Store> store = OpenOrDie(dir, /*create=*/true);
  REQUIRE_FALSE(store->initialized());
  REQUIRE(store->Initialize(StoreConfig(), vocab).ok());
  REQUIRE(store->initialized());
  return store;
}

// Commits `pairs` as one batch of `ranges` key ranges, each an equal share
// of the row numbers (so some may be empty).
Status CommitPairs(Store* store, const Pairs& pairs, const IngestProgress* progress = nullptr,
                   const std::vector<InputRecord>& finished = {}, size_t ranges = 1) {
  std::unique_ptr<Store::Batch> batch;
  SG_RETURN_IF_ERROR(store->NewBatch(ranges, &batch));
  const uint64_t rows_per_range = store->vocab().size() / ranges + 1;
  for (const auto& [rc, value] : pairs) {
    SG_RETURN_IF_ERROR(batch->Add(rc.first / rows_per_range, rc.first, rc.second, value));
  }
  BatchMetadata metadata;
  metadata.progress = progress;
  metadata.finished = finished;
  return store->CommitBatch(std::move(batch), metadata);
}

std::unique_ptr<Store::Batch> NewEmptyBatch(Store* store) {
  std::unique_ptr<Store::Batch> batch;
  REQUIRE(store->NewBatch(1, &batch).ok());
  return batch;
}

Pairs ReadPairs(Store* store) {
  Pairs pairs;
  std::pair<uint32_t, uint32_t> last;
  const Status s = store->ForEachPair([&](uint32_t row, uint32_t col, uint64_t value) {
    if (!pairs.empty() && std::make_pair(row, col) <= last) {
      return Status::Corruption(fmt::format("({}, {}) out of order", row, col));
    }
    last = {row, col};
    pairs[{row, col}] = value;
    return Status::OK();
  });
  INFO(s.ToString());
  REQUIRE(s.ok());
  return pairs;
}

std::string Render(const IngestProgress& p) {
  return fmt::format("{} {} {} {} {} [{}] {}", p.fingerprint, p.path, p.offset, p.continues_line,
                     p.starts_in_token, fmt::join(p.context, ","), p.tokens);
}

std::string Render(const std::vector<InputRecord>& inputs) {
  std::string out;
  for (const InputRecord& r : inputs) {
    out += fmt::format("{} {} {} {}\n", r.fingerprint, r.path, r.bytes, r.tokens);
  }
  return out;
}

// The store's progress record is `progress` and its input records `inputs`.
void CheckProgressAndInputs(Store* store, const IngestProgress& progress,
                            const std::vector<InputRecord>& inputs) {
  IngestProgress got;
  bool found = false;
  REQUIRE(store->GetProgress(&got, &found).ok());
  REQUIRE(found);
  CHECK(Render(got) == Render(progress));
  std::vector<InputRecord> listed;
  REQUIRE(store->ListInputs(&listed).ok());
  CHECK(Render(listed) == Render(inputs));
}

size_t FilesIn(const std::string& dir) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++n;
  return n;
}

// Every file of `dir` (not its folders) with its bytes, but the lock files
// and RocksDB's info log: what a refused Open() must leave as it was.
std::map<std::string, std::string> StoreFiles(const std::string& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (!e.is_regular_file() || name.rfind("LOCK", 0) == 0 || name.rfind("LOG", 0) == 0) continue;
    files[name] = ReadFile(e.path().string());
  }
  return files;
}

// Flips a byte in one of the store's table files.
void FlipByteInATable(const std::string& dir) {
  std::string sst;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() == ".sst") sst = e.path().string();
  }
  REQUIRE_FALSE(sst.empty());
  std::string bytes = ReadFile(sst);
  bytes[bytes.size() / 4] ^= 0x5a;
  WriteFile(sst, bytes);
}

}  // namespace

TEST_CASE("Store sums overlapping batches like a std::map", "[store]") {
  TestDir tmp("sg-store-");
  const std::string dir = tmp.path() + "/store";
  std::mt19937_64 rng(11);
  Pairs expected;
  {
    const uint32_t words = 4 * kBlockColumns + 7;
    std::unique_ptr<Store> store = NewInitializedStore(dir, NumberedVocab(words));
    // Enough batches that L0 compactions (and so merges during compaction) run.
    for (int b = 0; b < 12; ++b) {
      Pairs batch;
      const size_t n = 1 + rng() % 3000;
      for (size_t i = 0; i < n; ++i) {
        // Rows and columns cluster so batches overlap; columns span 4 blocks.
        const uint32_t row = static_cast<uint32_t>(rng() % 40);
        const uint32_t col = static_cast<uint32_t>(rng() % words);
        batch[{row, col}] += 1 + rng() % 5000;
      }
      if (b == 5) batch[{words - 1, words - 1}] = 1;
      // Batches of 1 to 4 key ranges (one file each), some of them empty.
      REQUIRE(CommitPairs(store.get(), batch, nullptr, {}, 1 + b % 4).ok());
      for (const auto& [rc, value] : batch) expected[rc] += value;
      if (b == 3) CHECK(ReadPairs(store.get()) == expected);
    }
    CHECK(ReadPairs(store.get()) == expected);
    CHECK(store->SizeOnDisk() > 0);
  }
  std::unique_ptr<Store> store = OpenOrDie(dir, /*create=*/false);
  REQUIRE(store->initialized());
  CHECK(ReadPairs(store.get()) == expected);
  // tmp/ is empty: committed batch files were moved into the store.
  CHECK(FilesIn(dir + "/tmp") == 0);

  // ForEachPair stops at the first error of f, and returns it.
  int calls = 0;
  const Status s = store->ForEachPair([&](uint32_t, uint32_t, uint64_t) {
    return ++calls == 3 ? Status::NotFound("stop") : Status::OK();
  });
  CHECK(s.code() == Status::Code::kNotFound);
  CHECK(s.message() == "stop");
  CHECK(calls == 3);

  // ForEachPairBelow(r) visits exactly the pairs of rows below r.
  const uint32_t last_row = expected.rbegin()->first.first;
  for (uint32_t row_end : {0u, 1u, 17u, 40u, last_row, last_row + 1}) {
    Pairs below, want;
    for (const auto& [rc, value] : expected) {
      if (rc.first < row_end) want[rc] = value;
    }
    REQUIRE(store
                ->ForEachPairBelow(row_end,
                                   [&](uint32_t row, uint32_t col, uint64_t value) {
                                     below[{row, col}] = value;
                                     return Status::OK();
                                   })
                .ok());
    INFO("row_end " << row_end);
    CHECK(below == want);
  }
  // ForEachPairInRows(b, e) visits exactly the pairs of rows in [b, e).
  for (const auto& [row_begin, row_end] : {std::pair{0u, 5u}, {3u, 17u}, {17u, 17u}, {20u, 41u}}) {
    Pairs in_rows, want;
    for (const auto& [rc, value] : expected) {
      if (rc.first >= row_begin && rc.first < row_end) want[rc] = value;
    }
    REQUIRE(store
                ->ForEachPairInRows(row_begin, row_end,
                                    [&](uint32_t row, uint32_t col, uint64_t value) {
                                      in_rows[{row, col}] = value;
                                      return Status::OK();
                                    })
                .ok());
    INFO("rows " << row_begin << " to " << row_end);
    CHECK(in_rows == want);
  }
}

TEST_CASE("Batches written by other processes commit with their records in one step", "[store]") {
  TestDir tmp("sg-store-");
  const std::string dir = tmp.path() + "/store";
  const uint32_t words = 3 * kBlockColumns;
  std::unique_ptr<Store> store = NewInitializedStore(dir, NumberedVocab(words));
  Pairs before;
  before[{2, 3}] = 7;
  REQUIRE(CommitPairs(store.get(), before).ok());
  // Two "ranks", each writing its rows (0-9, 10 and up) as a detached batch,
  // as a distributed ingest's owners do; rank 1 also has an empty range.
  std::mt19937_64 rng(5);
  Pairs rank_pairs[2];
  for (int i = 0; i < 2000; ++i) {
    const uint32_t row = static_cast<uint32_t>(rng() % 20),
                   col = static_cast<uint32_t>(rng() % words);
    rank_pairs[row < 10 ? 0 : 1][{row, col}] += 1 + rng() % 100;
  }
  std::vector<std::string> files;
  for (int r = 0; r < 2; ++r) {
    std::unique_ptr<Store::Batch> batch;
    REQUIRE(Store::NewDetachedBatch(fmt::format("{}/rank-{}", tmp.path(), r), words,
                                    store->config().block_layout(), 2, &batch)
                .ok());
    for (const auto& [rc, value] : rank_pairs[r])
      REQUIRE(batch->Add(0, rc.first, rc.second, value).ok());
    std::vector<std::string> written;
    REQUIRE(Store::FinishDetachedBatch(std::move(batch), &written).ok());
    REQUIRE(written.size() == 1);  // the empty range leaves no file
    CHECK(std::filesystem::exists(written[0]));
    files.push_back(written[0]);
  }
  const std::vector<InputRecord> records = {{"f1", "a.txt", 10, 2}, {"f2", "b.txt", 20, 4}};
  BatchMetadata metadata;
  metadata.finished = records;
  REQUIRE(store->CommitBatchFiles(files, metadata).ok());
  Pairs expected = before;
  for (const Pairs& p : rank_pairs) {
    for (const auto& [rc, value] : p) expected[rc] += value;
  }
  CHECK(ReadPairs(store.get()) == expected);
  std::vector<InputRecord> listed;
  REQUIRE(store->ListInputs(&listed).ok());
  CHECK(Render(listed) == Render(records));
  for (const std::string& f : files) CHECK_FALSE(std::filesystem::exists(f));
  // A store's own batch is not a detached one.
  std::unique_ptr<Store::Batch> own;
  REQUIRE(store->NewBatch(1, &own).ok());
  std::vector<std::string> none;
  CHECK(Store::FinishDetachedBatch(std::move(own), &none).code() == Status::Code::kInvalidArgument);
}

TEST_CASE("Store keeps config and vocabulary and inputs and progress across reopen", "[store]") {
  TestDir tmp("sg-store-");
  const std::string dir = tmp.path();  // an existing, empty directory
  StoreConfig config;
  config.window = 15;
  config.symmetric = false;
  config.weighting = DistanceWeighting::kLinear;
  config.scale = 15;
  config.tokenizer = "unicode";
  config.lowercase = true;
  config.json_field = "body";
  IngestProgress progress;
  progress.fingerprint = "00ff";
  progress.path = "/data/shard-1.jsonl.zst";
  progress.offset = uint64_t{1} << 40;
  progress.continues_line = true;
  progress.starts_in_token = true;
  progress.context = {0, 3, UINT32_MAX, 128};
  progress.tokens = 123456789;
  const InputRecord a{"aaaa", "/data/a.txt", 1000, 200};
  const InputRecord b{"bbbb", "/data/b.txt", uint64_t{5} << 33, 0};
  const InputRecord c{"cccc", "c.txt", 0, 0};
  {
    std::unique_ptr<Store> store = OpenOrDie(dir, /*create=*/true);
    REQUIRE(store->Initialize(config, TestVocab()).ok());
    CHECK(store->Initialize(config, TestVocab()).code() == Status::Code::kInvalidArgument);
    REQUIRE(CommitPairs(store.get(), {{{1, 2}, 3}}, &progress, {b, a}).ok());
  }
  std::unique_ptr<Store> store = OpenOrDie(dir, /*create=*/false);
  REQUIRE(store->initialized());
  CHECK(store->config().window == 15);
  CHECK_FALSE(store->config().symmetric);
  CHECK(store->config().weighting == DistanceWeighting::kLinear);
  CHECK(store->config().scale == 15);
  CHECK(store->config().tokenizer == "unicode");
  CHECK(store->config().lowercase);
  CHECK(store->config().json_field == "body");
  CHECK(store->config().format_version == kStoreFormatVersion);
  REQUIRE(store->vocab().size() == TestVocab().size());
  for (size_t i = 0; i < TestVocab().size(); ++i) {
    CHECK(store->vocab()[i].word == TestVocab()[i].word);
    CHECK(store->vocab()[i].count == TestVocab()[i].count);
  }

  CheckProgressAndInputs(store.get(), progress, {a, b});
  IngestProgress got;
  std::vector<InputRecord> inputs;
  bool found = false;
  InputRecord record;
  REQUIRE(store->FindInput("bbbb", &record, &found).ok());
  REQUIRE(found);
  CHECK(Render({record}) == Render({b}));
  REQUIRE(store->FindInput("bbb", &record, &found).ok());
  CHECK_FALSE(found);

  SECTION("a batch without progress deletes it") {
    REQUIRE(CommitPairs(store.get(), {{{1, 2}, 4}, {{2, 0}, 1}}, nullptr, {c}).ok());
    REQUIRE(store->GetProgress(&got, &found).ok());
    CHECK_FALSE(found);
    REQUIRE(store->ListInputs(&inputs).ok());
    CHECK(Render(inputs) == Render({a, b, c}));
    CHECK(ReadPairs(store.get()) == Pairs{{{1, 2}, 7}, {{2, 0}, 1}});
  }
  SECTION("a batch without pairs commits its metadata") {
    progress.offset += 10;
    progress.context.clear();
    REQUIRE(CommitPairs(store.get(), {}, &progress, {c}).ok());
    REQUIRE(store->GetProgress(&got, &found).ok());
    REQUIRE(found);
    CHECK(Render(got) == Render(progress));
    REQUIRE(CommitPairs(store.get(), {}, nullptr, {}).ok());
    store.reset();
    store = OpenOrDie(dir, /*create=*/false);
    REQUIRE(store->GetProgress(&got, &found).ok());
    CHECK_FALSE(found);
    REQUIRE(store->ListInputs(&inputs).ok());
    CHECK(Render(inputs) == Render({a, b, c}));
    CHECK(ReadPairs(store.get()) == Pairs{{{1, 2}, 3}});
  }
  SECTION("an input finished twice in one batch is refused, and nothing is written") {
    const Status s = CommitPairs(store.get(), {{{1, 2}, 4}}, nullptr, {c, c});
    CHECK(s.code() == Status::Code::kInvalidArgument);
    CHECK(ReadPairs(store.get()) == Pairs{{{1, 2}, 3}});
    REQUIRE(store->GetProgress(&got, &found).ok());
    CHECK(found);
  }
}

TEST_CASE("Batch::Add enforces its preconditions and abandoned batches leave no file", "[store]") {
  TestDir tmp("sg-store-");
  std::unique_ptr<Store> store = NewInitializedStore(tmp.path(), NumberedVocab(10));
  {
    std::unique_ptr<Store::Batch> batch;
    REQUIRE(store->NewBatch(1, &batch).ok());
    CHECK(batch->Add(0, 10, 0, 1).code() == Status::Code::kInvalidArgument);
    CHECK(batch->Add(0, 0, 10, 1).code() == Status::Code::kInvalidArgument);
    REQUIRE(batch->Add(0, 1, 5, 1).ok());
    CHECK(batch->Add(0, 1, 5, 1).code() == Status::Code::kInvalidArgument);
    CHECK(batch->Add(0, 0, 9, 1).code() == Status::Code::kInvalidArgument);
    CHECK(batch->Add(0, 1, 6, 0).code() == Status::Code::kInvalidArgument);
    REQUIRE(batch->Add(0, 1, 6, 2).ok());
    CHECK(FilesIn(tmp.path() + "/tmp") == 1);
  }
  CHECK(FilesIn(tmp.path() + "/tmp") == 0);
  CHECK(ReadPairs(store.get()).empty());
}

TEST_CASE("CommitBatch refuses key ranges that share a pair block and commits nothing", "[store]") {
  TestDir tmp("sg-store-");
  std::unique_ptr<Store> store = NewInitializedStore(tmp.path(), NumberedVocab(2 * kBlockColumns));
  IngestProgress progress;
  progress.fingerprint = "00ff";
  progress.path = "/data/shard-1.txt";
  SECTION("one block in two ranges") {
    std::unique_ptr<Store::Batch> batch;
    REQUIRE(store->NewBatch(3, &batch).ok());
    REQUIRE(batch->Add(0, 1, 5, 1).ok());
    REQUIRE(batch->Add(2, 1, 9, 1).ok());  // the same block as (1, 5), two ranges on
    const Status s = store->CommitBatch(std::move(batch), BatchMetadata{&progress, {}, {}, {}});
    CHECK(s.code() == Status::Code::kInvalidArgument);
    CHECK(s.message().find("overlap") != std::string::npos);
  }
  SECTION("ranges out of order") {
    std::unique_ptr<Store::Batch> batch;
    REQUIRE(store->NewBatch(2, &batch).ok());
    REQUIRE(batch->Add(0, 2, 0, 1).ok());
    REQUIRE(batch->Add(1, 1, 0, 1).ok());
    CHECK(store->CommitBatch(std::move(batch), BatchMetadata{&progress, {}, {}, {}}).code() ==
          Status::Code::kInvalidArgument);
  }
  SECTION("adjacent blocks of one row in two ranges are fine") {
    std::unique_ptr<Store::Batch> batch;
    REQUIRE(store->NewBatch(2, &batch).ok());
    REQUIRE(batch->Add(0, 1, kBlockColumns - 1, 3).ok());
    REQUIRE(batch->FinishRange(0).ok());
    CHECK(batch->Add(0, 1, kBlockColumns, 1).code() == Status::Code::kInvalidArgument);
    REQUIRE(batch->Add(1, 1, kBlockColumns, 4).ok());
    REQUIRE(store->CommitBatch(std::move(batch), BatchMetadata{&progress, {}, {}, {}}).ok());
    CHECK(ReadPairs(store.get()) == Pairs{{{1, kBlockColumns - 1}, 3}, {{1, kBlockColumns}, 4}});
    bool found = false;
    IngestProgress got;
    REQUIRE(store->GetProgress(&got, &found).ok());
    CHECK(found);
    return;
  }
  CHECK(ReadPairs(store.get()).empty());
  bool found = true;
  IngestProgress got;
  REQUIRE(store->GetProgress(&got, &found).ok());
  CHECK_FALSE(found);
  CHECK(FilesIn(tmp.path() + "/tmp") == 0);
}

TEST_CASE("Store::Open refuses what is not a usable store", "[store]") {
  TestDir tmp("sg-store-");
  std::unique_ptr<Store> store;

  SECTION("missing or empty directory without create") {
    Status s = Store::Open(tmp.path() + "/missing", kMemory, false, &store);
    CHECK(s.code() == Status::Code::kNotFound);
    CHECK_FALSE(std::filesystem::exists(tmp.path() + "/missing"));
    s = Store::Open(tmp.path(), kMemory, false, &store);
    CHECK(s.code() == Status::Code::kNotFound);
    CHECK(FilesIn(tmp.path()) == 0);
  }
  SECTION("a directory holding something else") {
    WriteFile(tmp.path() + "/notes.txt", "hello");
    const Status s = Store::Open(tmp.path(), kMemory, true, &store);
    CHECK(s.code() == Status::Code::kCorruption);
    CHECK(s.message() == tmp.path() + ": not a streamglove store");
    CHECK(FilesIn(tmp.path()) == 1);
  }
  SECTION("a store open elsewhere") {
    std::unique_ptr<Store> first = NewInitializedStore(tmp.path());
    const Status s = Store::Open(tmp.path(), kMemory, false, &store);
    CHECK(s.code() == Status::Code::kBusy);
    CHECK(s.message() ==
          fmt::format("{}: store is in use by another process (pid {})", tmp.path(), ::getpid()));
    first.reset();
    REQUIRE(Store::Open(tmp.path(), kMemory, false, &store).ok());
  }
  SECTION("a newer format version") {
    StoreConfig config;
    config.format_version = kStoreFormatVersion + 1;
    REQUIRE(OpenOrDie(tmp.path(), true)->Initialize(config, TestVocab()).ok());
    const Status s = Store::Open(tmp.path(), kMemory, false, &store);
    CHECK(s.code() == Status::Code::kInvalidArgument);
    CHECK(s.message() ==
          fmt::format("{}: store format version {} is newer than this build supports ({})",
                      tmp.path(), kStoreFormatVersion + 1, kStoreFormatVersion));
  }
  SECTION("an uninitialized store is not written to") {
    store = OpenOrDie(tmp.path(), true);
    std::unique_ptr<Store::Batch> batch;
    CHECK(store->NewBatch(1, &batch).code() == Status::Code::kInvalidArgument);
    store.reset();
    store = OpenOrDie(tmp.path(), false);
    CHECK_FALSE(store->initialized());
  }
}

TEST_CASE("A damaged store is refused, never created over or written to", "[store]") {
  TestDir tmp("sg-store-");
  const std::string path = tmp.path();
  {
    std::unique_ptr<Store> store = NewInitializedStore(path);
    REQUIRE(CommitPairs(store.get(), {{{0, 1}, 3}, {{1, 0}, 3}, {{2, 3}, 5}}).ok());
  }
  const auto remove_matching = [&](const std::string& prefix) {
    for (const auto& e : std::filesystem::directory_iterator(path)) {
      if (e.path().filename().string().rfind(prefix, 0) == 0) std::filesystem::remove(e.path());
    }
  };
  std::unique_ptr<Store> store;
  SECTION("CURRENT missing: refused for writing and reading, the tables kept") {
    std::filesystem::remove(path + "/CURRENT");
    const std::map<std::string, std::string> before = StoreFiles(path);
    for (const bool create : {true, false}) {
      const Status s = Store::Open(path, kMemory, create, &store);
      INFO(s.ToString());
      CHECK(s.code() == Status::Code::kCorruption);
      CHECK(s.message().find(path + ": a damaged store: RocksDB's CURRENT file is missing") == 0);
      CHECK(s.message().find("write CURRENT holding the line 'MANIFEST-") != std::string::npos);
    }
    CHECK(Store::OpenForReading(path, kMemory, &store).code() == Status::Code::kCorruption);
    CHECK(StoreFiles(path) == before);
    // The recovery the message names gives back the store as it was.
    std::string manifest;
    for (const auto& [name, bytes] : before) {
      if (name.rfind("MANIFEST-", 0) == 0) manifest = name;
    }
    WriteFile(path + "/CURRENT", manifest + "\n");
    store = OpenOrDie(path, false);
    CHECK(ReadPairs(store.get()) == Pairs{{{0, 1}, 3}, {{1, 0}, 3}, {{2, 3}, 5}});
  }
  SECTION("CURRENT and the MANIFEST missing") {
    std::filesystem::remove(path + "/CURRENT");
    remove_matching("MANIFEST-");
    const std::map<std::string, std::string> before = StoreFiles(path);
    const Status s = Store::Open(path, kMemory, true, &store);
    CHECK(s.code() == Status::Code::kCorruption);
    CHECK(s.message().find("no MANIFEST remain") != std::string::npos);
    CHECK(StoreFiles(path) == before);
  }
  SECTION("a flipped byte in a table: nothing is written") {
    FlipByteInATable(path);
    const std::map<std::string, std::string> before = StoreFiles(path);
    const Status s = Store::Open(path, kMemory, false, &store);
    INFO(s.ToString());
    CHECK(s.code() == Status::Code::kCorruption);
    CHECK(s.message().find(path + ": the store is damaged (") == 0);
    CHECK(s.message().find("nothing was written to it") != std::string::npos);
    CHECK(StoreFiles(path) == before);
  }
}

// RocksDB's recovery drops WAL records unseen when a WAL is damaged or
// deleted (it cannot tell a deleted WAL at all), where a table's checksums
// fail: a store keeps none at rest, every write is an ingested table.
TEST_CASE("A store holds no WAL records when its writers are done", "[store]") {
  TestDir tmp("sg-store-");
  const auto wal_bytes = [&] {
    uint64_t bytes = 0;
    for (const auto& e : std::filesystem::directory_iterator(tmp.path())) {
      if (e.path().extension() == ".log") bytes += e.file_size();
    }
    return bytes;
  };
  std::unique_ptr<Store> store = NewInitializedStore(tmp.path());
  REQUIRE(store->AddWords({"new", "words"}).ok());
  REQUIRE(store->SetWordsHeld({"key"}).ok());
  IngestProgress progress;
  progress.fingerprint = "00ff";
  progress.path = "b.txt";
  progress.offset = 77;
  REQUIRE(CommitPairs(store.get(), {{{0, 1}, 3}}, nullptr, {{"aa", "a.txt", 10, 2}}).ok());
  // Last, as an ingest's last batch may be: no later write flushes it.
  REQUIRE(CommitPairs(store.get(), {}, &progress).ok());  // a batch without pairs
  CHECK(wal_bytes() == 0);
  store.reset();
  CHECK(wal_bytes() == 0);
  store = OpenOrDie(tmp.path(), false);
  CHECK(store->vocab().size() == TestVocab().size() + 2);
  CHECK(ReadPairs(store.get()) == Pairs{{{0, 1}, 3}});
}

TEST_CASE("A store whose creation was killed before RocksDB wrote it is created again", "[store]") {
  TestDir tmp("sg-store-");
  // What a process killed inside Open(create) may leave: the lock, tmp/,
  // and RocksDB's first files before CURRENT (no table, no record).
  WriteFile(tmp.path() + "/LOCK.streamglove", "12345\n");
  std::filesystem::create_directory(tmp.path() + "/tmp");
  WriteFile(tmp.path() + "/000003.log", "");
  NewInitializedStore(tmp.path()).reset();
  CHECK(OpenOrDie(tmp.path(), false)->initialized());
}

TEST_CASE("Store::Open removes batch files left by a killed process", "[store]") {
  TestDir tmp("sg-store-");
  NewInitializedStore(tmp.path()).reset();
  WriteFile(tmp.path() + "/tmp/batch-7.sst", "half a file");
  std::unique_ptr<Store> store = OpenOrDie(tmp.path(), false);
  CHECK(FilesIn(tmp.path() + "/tmp") == 0);
}

TEST_CASE("Reopening a store does not pile up empty WAL files", "[store]") {
  TestDir tmp("sg-store-");
  const auto wal_files = [&] {
    size_t n = 0;
    for (const auto& e : std::filesystem::directory_iterator(tmp.path()))
      n += e.path().extension() == ".log";
    return n;
  };
  NewInitializedStore(tmp.path()).reset();
  const Pairs pairs = {{{0, 1}, 5}, {{2, 3}, 7}};
  for (int i = 0; i < 5; ++i) {
    std::unique_ptr<Store> store = OpenOrDie(tmp.path(), false);
    if (i == 2) REQUIRE(CommitPairs(store.get(), pairs).ok());
  }
  // RocksDB's own info log is LOG, not *.log; what remains is the last open's
  // WAL and any WAL still holding metadata written since the last flush.
  CHECK(wal_files() <= 2);
  std::unique_ptr<Store> store = OpenOrDie(tmp.path(), false);
  CHECK(store->initialized());
  CHECK(store->vocab().size() == TestVocab().size());
  CHECK(ReadPairs(store.get()) == pairs);
}

TEST_CASE("A malformed merge operand is a corruption and never read as zero", "[store]") {
  TestDir tmp("sg-store-");
  {
    std::unique_ptr<Store> store = NewInitializedStore(tmp.path(), NumberedVocab(10));
    REQUIRE(CommitPairs(store.get(), {{{4, 1}, 10}, {{5, 1}, 10}}).ok());
  }
  {
    // Behind the store's back: a raw RocksDB merge of a truncated fragment.
    rocksdb::Options options;
    options.merge_operator = NewPairBlockMergeOperator();
    rocksdb::DB* raw = nullptr;
    REQUIRE(rocksdb::DB::Open(options, tmp.path(), &raw).ok());
    std::unique_ptr<rocksdb::DB> db(raw);
    REQUIRE(db->Merge(rocksdb::WriteOptions(), EncodePairBlockKey(5, 0), "\x02\x01\x01").ok());
    REQUIRE(db->Close().ok());
  }
  std::unique_ptr<Store> store = OpenOrDie(tmp.path(), false);
  std::vector<uint32_t> rows;
  const Status s = store->ForEachPair([&](uint32_t row, uint32_t, uint64_t) {
    rows.push_back(row);
    return Status::OK();
  });
  CHECK(s.code() == Status::Code::kCorruption);
  CHECK(s.message().find(tmp.path() + ": pair blocks after row 4 block 0: ") == 0);
  CHECK(rows == std::vector<uint32_t>{4});
}

TEST_CASE("verify passes a sound store and names broken invariants", "[store]") {
  TestDir dir("sg-verify-");
  const std::string path = dir.path() + "/store";
  {
    std::unique_ptr<Store> store = NewInitializedStore(path);
    // 73 tokens: the test vocabulary's counts, every token a word's.
    REQUIRE(CommitPairs(store.get(), {{{0, 1}, 7}, {{1, 0}, 7}, {{2, 2}, 3}}, nullptr,
                        {InputRecord{"f1", "a.txt", 10, 73}})
                .ok());
  }
  VerifyReport report;
  REQUIRE(VerifyStore(path, kMemory, &report).ok());
  CHECK(report.problems.empty());
  CHECK(report.checks.size() == 7);

  // One more pair above the diagonal only: no longer symmetric.
  {
    std::unique_ptr<Store> store = OpenOrDie(path, false);
    REQUIRE(CommitPairs(store.get(), {{{0, 3}, 1}}).ok());
  }
  REQUIRE(VerifyStore(path, kMemory, &report).ok());
  REQUIRE(report.problems.size() == 1);
  CHECK(report.problems[0].find("symmetric store whose X_ij and X_ji differ") != std::string::npos);

  // A flipped byte inside a table file: the checksums catch it.
  FlipByteInATable(path);
  // Either the store no longer opens (the metadata's table is the one hit) or
  // the checksum pass reports the file.
  const Status s = VerifyStore(path, kMemory, &report);
  std::string found = s.ok() ? "" : s.message();
  for (const std::string& p : report.problems) found += p;
  INFO(found);
  CHECK((found.find("hecksum") != std::string::npos || found.find("orrupt") != std::string::npos));
}

TEST_CASE("Metadata written beside the pairs commits as CommitBatch's own does", "[store]") {
  TestDir dir("sg-store-meta-");
  IngestProgress progress;
  progress.fingerprint = "00ff";
  progress.path = "b.txt";
  progress.offset = 77;
  progress.context = {1, 0};
  const InputRecord a{"aaaa", "a.txt", 100, 20};
  BatchMetadata metadata;
  metadata.progress = &progress;
  metadata.finished = {a};
  metadata.word_counts = {5, 0, 7};
  // written: WriteMetadata on another thread while the pairs are added;
  // alone: the same metadata left to CommitBatch; empty: written, no pairs.
  for (const std::string mode : {"written", "alone", "empty"}) {
    INFO(mode);
    const std::string path = dir.path() + "/" + mode;
    {
      std::unique_ptr<Store> store = NewInitializedStore(path, {{"a", 1}, {"b", 0}, {"c", 0}});
      std::unique_ptr<Store::Batch> batch;
      REQUIRE(store->NewBatch(2, &batch).ok());
      Status written;
      std::thread writer;
      if (mode != "alone") writer = std::thread([&] { written = batch->WriteMetadata(metadata); });
      if (mode != "empty") {
        REQUIRE(batch->Add(0, 0, 2, 9).ok());
        REQUIRE(batch->Add(1, 2, 0, 9).ok());
      }
      if (writer.joinable()) writer.join();
      REQUIRE(written.ok());
      if (mode != "alone")
        CHECK(batch->WriteMetadata(metadata).code() == Status::Code::kInvalidArgument);
      REQUIRE(store->CommitBatch(std::move(batch), metadata).ok());
      CHECK(store->vocab()[0].count == 6);
    }
    std::unique_ptr<Store> store = OpenOrDie(path, false);
    CHECK(store->vocab()[0].count == 6);
    CHECK(store->vocab()[1].count == 0);
    CHECK(store->vocab()[2].count == 7);
    CheckProgressAndInputs(store.get(), progress, {a});
    CHECK(ReadPairs(store.get()).size() == (mode == "empty" ? 0u : 2u));
  }

  // Other metadata than was written is refused, and nothing changes.
  std::unique_ptr<Store> store = OpenOrDie(dir.path() + "/written", false);
  std::unique_ptr<Store::Batch> batch;
  REQUIRE(store->NewBatch(1, &batch).ok());
  REQUIRE(batch->Add(0, 1, 1, 3).ok());
  REQUIRE(batch->WriteMetadata(metadata).ok());
  BatchMetadata other = metadata;
  other.word_counts = {5, 0, 8};
  CHECK(store->CommitBatch(std::move(batch), other).code() == Status::Code::kInvalidArgument);
  CHECK(store->vocab()[2].count == 7);
  CHECK(ReadPairs(store.get()).size() == 2);
  // Metadata written against a vocabulary that changed before the commit
  // (its word records hold the old counts) is refused; so are words added.
  for (const bool add_words : {false, true}) {
    REQUIRE(store->NewBatch(1, &batch).ok());
    REQUIRE(batch->Add(0, 1, 1, 3).ok());
    REQUIRE(batch->WriteMetadata(metadata).ok());
    if (add_words) {
      REQUIRE(store->AddWords({"d"}).ok());
    } else {
      BatchMetadata between;
      between.word_counts = {0, 0, 1};
      REQUIRE(store->CommitBatch(NewEmptyBatch(store.get()), between).ok());
    }
    CHECK(store->CommitBatch(std::move(batch), metadata).code() == Status::Code::kInvalidArgument);
  }
  CHECK(store->vocab()[2].count == 8);
  CHECK(ReadPairs(store.get()).size() == 2);
  // Metadata the store refuses is refused when written too.
  BatchMetadata twice = metadata;
  twice.finished = {a, a};
  REQUIRE(store->NewBatch(1, &batch).ok());
  CHECK(batch->WriteMetadata(twice).code() == Status::Code::kInvalidArgument);
  // A detached batch carries no metadata.
  std::unique_ptr<Store::Batch> detached;
  REQUIRE(Store::NewDetachedBatch(dir.path() + "/detached", 3, PairBlockLayout::kWide, 1, &detached)
              .ok());
  CHECK(detached->WriteMetadata(metadata).code() == Status::Code::kInvalidArgument);
}

TEST_CASE("Words added later get the next ids and batches grow their counts atomically",
          "[store]") {
  TestDir dir("sg-store-grow-");
  const std::string path = dir.path() + "/store";
  {
    std::unique_ptr<Store> store = NewInitializedStore(path, {{"a", 0}, {"b", 0}});
    REQUIRE(store->AddWords({"c", "d"}).ok());
    REQUIRE(store->vocab().size() == 4);
    CHECK(store->vocab()[2].word == "c");
    BatchMetadata metadata;
    metadata.word_counts = {5, 0, 7};  // d is not counted
    std::unique_ptr<Store::Batch> batch;
    REQUIRE(store->NewBatch(1, &batch).ok());
    REQUIRE(batch->Add(0, 0, 2, 9).ok());
    REQUIRE(store->CommitBatch(std::move(batch), metadata).ok());
    metadata.word_counts = {1, 2};
    REQUIRE(store->CommitBatch(NewEmptyBatch(store.get()), metadata).ok());  // metadata alone
    CHECK(store->vocab()[0].count == 6);
    // More ids than the vocabulary holds: refused, nothing changes.
    metadata.word_counts.assign(5, 1);
    CHECK(store->CommitBatch(NewEmptyBatch(store.get()), metadata).code() ==
          Status::Code::kInvalidArgument);
  }
  std::unique_ptr<Store> store = OpenOrDie(path, false);
  const std::vector<VocabEntry> want = {{"a", 6}, {"b", 2}, {"c", 7}, {"d", 0}};
  REQUIRE(store->vocab().size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    CHECK(store->vocab()[i].word == want[i].word);
    CHECK(store->vocab()[i].count == want[i].count);
  }
  // Ranked by count, cut at min_count: c, a, b; d (never counted) is not a word yet.
  const RankedVocab ranked(store->config(), store->vocab(), 1, 0);
  REQUIRE(ranked.size() == 3);
  CHECK(ranked.words()[0].word == "c");
  CHECK(ranked.rank(2) == 0);
  CHECK(ranked.rank(3) == RankedVocab::kCut);
  CHECK_FALSE(ranked.ids_are_ranks());
  std::vector<std::tuple<uint32_t, uint32_t, uint64_t>> pairs;
  REQUIRE(ForEachRankedPair(store.get(), ranked, [&](uint32_t r, uint32_t c, uint64_t v) {
            pairs.emplace_back(r, c, v);
            return Status::OK();
          }).ok());
  CHECK(pairs == std::vector<std::tuple<uint32_t, uint32_t, uint64_t>>{{1, 0, 9}});
  // A fixed vocabulary takes no words.
  StoreConfig fixed;
  fixed.fixed_vocabulary = true;
  std::unique_ptr<Store> fixed_store = OpenOrDie(dir.path() + "/fixed", true);
  REQUIRE(fixed_store->Initialize(fixed, TestVocab()).ok());
  CHECK(fixed_store->AddWords({"x"}).code() == Status::Code::kInvalidArgument);
  CHECK(fixed_store->SetWordsHeld({"ab"}).code() == Status::Code::kInvalidArgument);
}

TEST_CASE("A growing store keeps the record of the inputs whose words it holds", "[store]") {
  TestDir dir("sg-store-held-");
  const std::string path = dir.path() + "/store";
  std::vector<std::string> held;
  {
    std::unique_ptr<Store> store = NewInitializedStore(path, {{"a", 0}});
    bool recorded = true;
    REQUIRE(store->GetWordsHeld(&held, &recorded).ok());
    CHECK(held.empty());
    CHECK_FALSE(recorded);
    REQUIRE(store->SetWordsHeld({"f1", std::string(300, 'x'), ""}).ok());
    REQUIRE(store->SetWordsHeld({"f2", "f3"}).ok());  // replaces
  }
  std::unique_ptr<Store> store = OpenOrDie(path, false);
  bool recorded = false;
  REQUIRE(store->GetWordsHeld(&held, &recorded).ok());
  CHECK(held == std::vector<std::string>{"f2", "f3"});
  CHECK(recorded);
  REQUIRE(store->SetWordsHeld({}).ok());  // recorded, and empty
  REQUIRE(store->GetWordsHeld(&held, &recorded).ok());
  CHECK(held.empty());
  CHECK(recorded);
}

TEST_CASE("Ranks order by count then bytes, and rank order visits rows and columns by rank",
          "[store]") {
  TestDir dir("sg-store-rank-");
  // Ids in first-seen order; counts make the ranks 3 1 0 2 (ties by bytes).
  std::unique_ptr<Store> store =
      NewInitializedStore(dir.path() + "/store", {{"z", 1}, {"b", 5}, {"y", 9}, {"a", 5}});
  Pairs all;
  for (uint32_t r = 0; r < 4; ++r) {
    for (uint32_t c = 0; c < 4; ++c) all[{r, c}] = 10 * r + c + 1;
  }
  REQUIRE(CommitPairs(store.get(), all).ok());
  StoreConfig config;
  config.min_count = 5;
  const RankedVocab ranked(config, store->vocab(), 0, 0);
  REQUIRE(ranked.size() == 3);
  CHECK(ranked.words()[0].word == "y");
  CHECK(ranked.words()[1].word == "a");
  CHECK(ranked.words()[2].word == "b");
  std::vector<std::tuple<uint32_t, uint32_t, uint64_t>> got, want;
  for (uint32_t r = 0; r < 3; ++r) {
    for (uint32_t c = 0; c < 3; ++c) {
      want.emplace_back(r, c, all[{ranked.id(r), ranked.id(c)}]);
    }
  }
  REQUIRE(ForEachRankedPair(store.get(), ranked, [&](uint32_t r, uint32_t c, uint64_t v) {
            got.emplace_back(r, c, v);
            return Status::OK();
          }).ok());
  CHECK(got == want);
  CHECK(RankedVocab(config, store->vocab(), 1, 2).size() == 2);  // max_vocab
}

TEST_CASE("A version 1 store reads as a fixed vocabulary and is upgraded when opened to write",
          "[store]") {
  TestDir dir("sg-store-v1-");
  const std::string path = dir.path() + "/store";
  {
    StoreConfig v1;
    v1.format_version = 1;  // EncodeConfig writes version 1's layout
    std::unique_ptr<Store> store = OpenOrDie(path, true);
    REQUIRE(store->Initialize(v1, TestVocab()).ok());
  }
  {
    std::unique_ptr<Store> store;
    REQUIRE(Store::OpenForReading(path, kMemory, &store).ok());
    CHECK(store->config().format_version == 1);
    CHECK(store->config().fixed_vocabulary);
    CHECK(store->config().min_count == 1);
    CHECK(store->vocab().size() == TestVocab().size());
  }
  OpenOrDie(path, false);  // upgrades, to the version of narrow pair blocks
  std::unique_ptr<Store> store;
  REQUIRE(Store::OpenForReading(path, kMemory, &store).ok());
  CHECK(store->config().format_version == kNarrowBlocksFormatVersion);
  CHECK(store->config().fixed_vocabulary);
  CHECK(store->vocab()[0].count == TestVocab()[0].count);
}

TEST_CASE("Version 3 stores write wide blocks for ids from 65536, older stores narrow ones",
          "[store]") {
  const uint32_t rare = kWideBlockFromId + 4;  // a row and a column of wide blocks
  const Pairs pairs = {{{3, 5}, 1},    {{3, 5000}, 2},    {{3, rare}, 3},    {{3, 70000}, 4},
                       {{rare, 5}, 5}, {{rare, 5000}, 6}, {{rare, 70000}, 7}};
  // (row, block) of each pair block, block = first column / 4096.
  using Keys = std::set<std::pair<uint32_t, uint32_t>>;
  const Keys narrow = {{3, 0}, {3, 1}, {3, 16}, {3, 17}, {rare, 0}, {rare, 1}, {rare, 17}};
  const Keys wide = {{3, 0}, {3, 1}, {3, 16}, {rare, 0}, {rare, 16}};
  for (const uint32_t version : {1u, 2u, 3u}) {
    INFO("format version " << version);
    TestDir tmp("sg-store-layout-");
    const std::string path = tmp.path() + "/store";
    {
      StoreConfig config;
      config.format_version = version;
      std::unique_ptr<Store> store = OpenOrDie(path, /*create=*/true);
      REQUIRE(store->Initialize(config, NumberedVocab(75000)).ok());
    }
    Pairs twice;
    {
      std::unique_ptr<Store> store = OpenOrDie(path, /*create=*/false);  // upgrades version 1
      CHECK(store->config().format_version == std::max(version, kNarrowBlocksFormatVersion));
      REQUIRE(CommitPairs(store.get(), pairs).ok());
      REQUIRE(CommitPairs(store.get(), pairs, nullptr, {}, /*ranges=*/2).ok());
      for (const auto& [rc, value] : pairs) twice[rc] = 2 * value;
      CHECK(ReadPairs(store.get()) == twice);
    }
    rocksdb::Options options;
    options.merge_operator = NewPairBlockMergeOperator();
    rocksdb::DB* raw = nullptr;
    REQUIRE(rocksdb::DB::OpenForReadOnly(options, path, &raw).ok());
    std::unique_ptr<rocksdb::DB> db(raw);
    Keys keys;
    std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(rocksdb::ReadOptions()));
    for (it->Seek(std::string(1, kPairKeyPrefix)); it->Valid(); it->Next()) {
      uint32_t row = 0, block = 0;
      if (!DecodePairBlockKey(std::string_view(it->key().data(), it->key().size()), &row, &block))
        break;
      keys.insert({row, block});
    }
    REQUIRE(it->status().ok());
    CHECK(keys == (version >= 3 ? wide : narrow));
  }
}

TEST_CASE("A block of the wrong width or place for the store's layout is a corruption", "[store]") {
  const uint32_t rare = kWideBlockFromId + 4;
  // Each a block that the merge operator takes (its widest width holds it)
  // but the store's own layout does not.
  struct Case {
    uint32_t version, block;
    uint64_t delta;  // of the one column, from the block's first
  };
  for (const Case& c : {Case{2, 16, 5000},  // a narrow store: block 16 ends at 69631
                        Case{3, 17, 1}}) {  // a wide store: wide blocks start at multiples of 16
    INFO("format version " << c.version << ", block " << c.block);
    TestDir tmp("sg-store-layout-");
    {
      StoreConfig config;
      config.format_version = c.version;
      std::unique_ptr<Store> store = OpenOrDie(tmp.path(), /*create=*/true);
      REQUIRE(store->Initialize(config, NumberedVocab(75000)).ok());
    }
    {
      rocksdb::Options options;
      options.merge_operator = NewPairBlockMergeOperator();
      rocksdb::DB* raw = nullptr;
      REQUIRE(rocksdb::DB::Open(options, tmp.path(), &raw).ok());
      std::unique_ptr<rocksdb::DB> db(raw);
      std::string fragment;
      PutVarint64(&fragment, 1);
      PutVarint64(&fragment, c.delta);
      PutVarint64(&fragment, 7);
      REQUIRE(db->Merge(rocksdb::WriteOptions(), EncodePairBlockKey(rare, c.block), fragment).ok());
      REQUIRE(db->Close().ok());
    }
    std::unique_ptr<Store> store = OpenOrDie(tmp.path(), false);
    const Status s = store->ForEachPair([](uint32_t, uint32_t, uint64_t) { return Status::OK(); });
    INFO(s.ToString());
    CHECK(s.code() == Status::Code::kCorruption);
    CHECK(s.ToString().find("layout") != std::string::npos);
  }
}
