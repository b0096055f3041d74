#include <unistd.h>

#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <thread>
#include <tuple>

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <rocksdb/db.h>

#include "store/pair_block.h"
#include "store/pair_block_merge_operator.h"
#include "store/ranked_vocab.h"
#include "store/store.h"
#include "store/store_fixture.h"
#include "streamglove/store_info.h"
#include "test_util.h"
#include "util/coding.h"
#include "util/file.h"

using namespace streamglove;
using namespace streamglove::test;

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

// RocksDB reads a MANIFEST whose end is cut off as its last complete record
// left the store: the tables of the commits after it are orphans, which the
// next open for writing deletes. The store keeps the MANIFEST's committed
// length beside it, so such a store is refused instead of read as older.
TEST_CASE("A MANIFEST cut short of its last commit is refused, not read as older", "[store]") {
  // At the last record's start (RocksDB sees a whole, older MANIFEST) and
  // inside it (a record cut short at the end of a file reads as its end).
  for (const bool inside_record : {false, true}) {
    TestDir tmp("sg-store-");
    const std::string path = tmp.path();
    const auto manifest_path = [&] { return path + "/" + CurrentManifest(path); };
    uint64_t first_commit_end = 0, second_commit_end = 0;
    {
      std::unique_ptr<Store> store = NewInitializedStore(path);
      REQUIRE(CommitPairs(store.get(), {{{0, 1}, 3}, {{1, 0}, 3}}).ok());
      first_commit_end = std::filesystem::file_size(manifest_path());
      REQUIRE(CommitPairs(store.get(), {{{2, 3}, 5}, {{3, 2}, 5}}).ok());
    }
    // What the record says the last commit left: a compaction may have
    // added to the MANIFEST since, and a cut below the record is refused.
    std::istringstream record(ReadFile(path + "/COMMITTED.streamglove"));
    std::string manifest_name;
    record >> manifest_name >> second_commit_end;
    REQUIRE(manifest_name == CurrentManifest(path));
    REQUIRE(second_commit_end > first_commit_end);
    const uint64_t cut =
        inside_record ? (first_commit_end + second_commit_end) / 2 : first_commit_end;
    INFO("cut to " << cut << " of " << second_commit_end << " bytes");
    std::filesystem::resize_file(manifest_path(), cut);
    const std::map<std::string, std::string> before = StoreFiles(path);
    std::unique_ptr<Store> store;
    for (const bool read_only : {true, false}) {
      const Status s = read_only ? Store::OpenForReading(path, kMemory, &store)
                                 : Store::Open(path, kMemory, false, &store);
      INFO(s.ToString());
      CHECK(s.code() == Status::Code::kCorruption);
      CHECK(s.message().find(fmt::format("{}: {} bytes", manifest_path(), cut)) == 0);
      CHECK(s.message().find(fmt::format("its last commit left {}", second_commit_end)) !=
            std::string::npos);
    }
    CHECK(StoreFiles(path) == before);
  }
}

TEST_CASE("The MANIFEST's recorded length follows commits and opens, and is checked", "[store]") {
  TestDir tmp("sg-store-");
  const std::string path = tmp.path(), record = path + "/COMMITTED.streamglove";
  const auto current_manifest = [&] { return CurrentManifest(path); };
  const auto recorded = [&] {
    const std::string line = ReadFile(record);
    return line.substr(0, line.rfind(' '));
  };
  {
    std::unique_ptr<Store> store = NewInitializedStore(path);
    REQUIRE(CommitPairs(store.get(), {{{0, 1}, 3}, {{1, 0}, 3}}).ok());
    CHECK(recorded() == fmt::format("{} {}", current_manifest(),
                                    std::filesystem::file_size(path + "/" + current_manifest())));
  }
  // An open for writing starts a new MANIFEST, and records it.
  const std::string first_manifest = current_manifest();
  OpenOrDie(path, false).reset();
  CHECK(current_manifest() != first_manifest);
  CHECK(recorded().rfind(current_manifest() + " ", 0) == 0);
  std::unique_ptr<Store> store;
  SECTION("a damaged record is refused, naming it") {
    std::string line = ReadFile(record);
    line[line.find(' ') + 1] ^= 1;  // a digit of the length
    WriteFile(record, line);
    const Status s = Store::OpenForReading(path, kMemory, &store);
    CHECK(s.code() == Status::Code::kCorruption);
    CHECK(s.message().find(record + ": damaged") == 0);
    CHECK(Store::Open(path, kMemory, false, &store).code() == Status::Code::kCorruption);
  }
  SECTION("no record (an older build's store) is no check") {
    std::filesystem::remove(record);
    REQUIRE(Store::OpenForReading(path, kMemory, &store).ok());
    CHECK(ReadPairs(store.get()) == Pairs{{{0, 1}, 3}, {{1, 0}, 3}});
    store.reset();
    CHECK_FALSE(std::filesystem::exists(record));
    OpenOrDie(path, false).reset();
    CHECK(std::filesystem::exists(record));
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
  // And the MANIFEST's record of an open killed before its first commit,
  // its CURRENT since lost: no check without CURRENT.
  TestDir other("sg-store-");
  OpenOrDie(other.path(), true).reset();
  std::filesystem::copy_file(other.path() + "/COMMITTED.streamglove",
                             tmp.path() + "/COMMITTED.streamglove");
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
