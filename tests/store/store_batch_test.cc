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
#include "store/store.h"
#include "store/store_fixture.h"
#include "streamglove/store_info.h"
#include "test_util.h"
#include "util/coding.h"
#include "util/file.h"

using namespace streamglove;
using namespace streamglove::test;

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
