#include "store/store.h"

#include <unistd.h>

#include <algorithm>
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
#include "store/store_fixture.h"
#include "streamglove/store_info.h"
#include "test_util.h"
#include "util/coding.h"
#include "util/file.h"

using namespace streamglove;
using namespace streamglove::test;

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

// RocksDB 7.8's merging iterator drops the error of a level's iterator that
// steps into a file whose first block fails its checksum when range
// deletions are read (facebook/rocksdb#11782); the store's scans must fail
// there, not end early with the pairs before it.
TEST_CASE("A scan fails at a damaged first block of a table, not skipping its pairs", "[store]") {
  TestDir tmp("sg-store-scan-");
  const std::string path = tmp.path();
  Pairs pairs;
  for (uint32_t row = 0; row < 100; ++row) pairs[{row, (row * 7 + 3) % 100}] = row + 1;
  {
    std::unique_ptr<Store> store = NewInitializedStore(path, NumberedVocab(100));
    // Four tables of disjoint rows, ingested side by side into the last level.
    REQUIRE(CommitPairs(store.get(), pairs, nullptr, {}, /*ranges=*/4).ok());
  }
  // The second table of pairs in key order: a level iterator steps into it.
  std::vector<rocksdb::LiveFileMetaData> tables;
  {
    rocksdb::Options options;
    options.merge_operator = NewPairBlockMergeOperator();
    rocksdb::DB* raw = nullptr;
    REQUIRE(rocksdb::DB::OpenForReadOnly(options, path, &raw).ok());
    std::unique_ptr<rocksdb::DB> db(raw);
    db->GetLiveFilesMetaData(&tables);
  }
  std::vector<std::pair<std::string, std::string>> pair_tables;  // smallest key, file
  for (const rocksdb::LiveFileMetaData& t : tables) {
    if (!t.smallestkey.empty() && t.smallestkey[0] == kPairKeyPrefix)
      pair_tables.emplace_back(t.smallestkey, t.name);
  }
  REQUIRE(pair_tables.size() == 4);
  std::sort(pair_tables.begin(), pair_tables.end());
  const std::string damaged = path + pair_tables[1].second;
  std::string bytes = ReadFile(damaged);
  bytes[5] ^= 0x5a;  // inside the first data block, at offset 0
  WriteFile(damaged, bytes);

  std::unique_ptr<Store> store;
  REQUIRE(Store::OpenForReading(path, kMemory, &store).ok());
  uint64_t seen = 0;
  const Status s = store->ForEachPair([&](uint32_t, uint32_t, uint64_t) {
    ++seen;
    return Status::OK();
  });
  INFO(s.ToString() << "; " << seen << " of " << pairs.size() << " pairs seen");
  CHECK(s.code() == Status::Code::kCorruption);
  CHECK(s.message().find("checksum mismatch") != std::string::npos);
  CHECK(s.message().find(pair_tables[1].second.substr(1)) != std::string::npos);
  CHECK(seen < pairs.size());
}
