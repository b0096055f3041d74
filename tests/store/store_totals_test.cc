#include <filesystem>
#include <random>

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <rocksdb/db.h>
#include <rocksdb/sst_file_writer.h>

#include "store/pair_block.h"
#include "store/pair_block_merge_operator.h"
#include "store/pair_totals.h"
#include "store/store_fixture.h"
#include "store/store_records.h"
#include "streamglove/store_info.h"
#include "test_util.h"

using namespace streamglove;
using namespace streamglove::test;

namespace {

// verify's problems that name the totals' record.
std::vector<std::string> TotalsProblems(const VerifyReport& report) {
  std::vector<std::string> found;
  for (const std::string& p : report.problems) {
    if (p.find("totals") != std::string::npos) found.push_back(p);
  }
  return found;
}

__uint128_t SumOf(const Pairs& pairs) {
  __uint128_t sum = 0;
  for (const auto& [rc, value] : pairs) sum += value;
  return sum;
}

// The store's totals, which must be known.
PairTotals KnownTotals(Store* store) {
  PairTotals totals;
  bool known = false;
  const Status s = store->GetPairTotals(&totals, &known);
  INFO(s.ToString());
  REQUIRE(s.ok());
  REQUIRE(known);
  return totals;
}

bool TotalsKnown(Store* store) {
  PairTotals totals;
  bool known = true;
  REQUIRE(store->GetPairTotals(&totals, &known).ok());
  return known;
}

// `n` random pairs in rows [row_begin, row_end), columns over `words`.
Pairs RandomPairs(std::mt19937_64* rng, uint32_t row_begin, uint32_t row_end, uint32_t words,
                  size_t n) {
  Pairs pairs;
  for (size_t i = 0; i < n; ++i) {
    const uint32_t row = row_begin + static_cast<uint32_t>((*rng)() % (row_end - row_begin));
    pairs[{row, static_cast<uint32_t>((*rng)() % words)}] += 1 + (*rng)() % 5000;
  }
  return pairs;
}

StoreStats Stats(const std::string& dir, PairCount count, int threads = 2) {
  StoreStats stats;
  StatsOptions options;
  options.pairs = count;
  options.threads = threads;
  const Status s = ComputeStoreStats(dir, kMemory, &stats, options);
  INFO(s.ToString());
  REQUIRE(s.ok());
  return stats;
}

}  // namespace

TEST_CASE("The totals' record is exact while batches meet no pairs, then bounds them", "[store]") {
  TestDir tmp("sg-totals-");
  const std::string dir = tmp.path() + "/store";
  const uint32_t words = 4 * kBlockColumns + 7;
  std::mt19937_64 rng(23);
  Pairs expected;
  uint64_t batch_pairs = 0;  // the bound: every batch's pairs, old or new
  {
    std::unique_ptr<Store> store = NewInitializedStore(dir, NumberedVocab(words));
    PairTotals totals = KnownTotals(store.get());
    CHECK(totals.pairs == 0);
    CHECK(totals.units == 0);
    CHECK(totals.pairs_exact);
    // Batches 0-2 take rows of their own (no key range of theirs holds a
    // block of the store): exact. Batch 3 meets earlier rows: a bound from then on.
    const std::pair<uint32_t, uint32_t> rows[] = {{0, 10}, {20, 30}, {10, 20}, {5, 25}, {0, 40}};
    for (size_t b = 0; b < std::size(rows); ++b) {
      const Pairs batch = RandomPairs(&rng, rows[b].first, rows[b].second, words, 500 + b * 300);
      IngestProgress progress;
      progress.fingerprint = "f";
      progress.offset = b + 1;
      REQUIRE(CommitPairs(store.get(), batch, &progress, {}, 1 + b % 3).ok());
      for (const auto& [rc, value] : batch) expected[rc] += value;
      batch_pairs += batch.size();
      INFO("batch " << b);
      totals = KnownTotals(store.get());
      CHECK(totals.units == SumOf(expected));
      CHECK(totals.pairs_exact == (b < 3));
      CHECK(totals.pairs == (b < 3 ? expected.size() : batch_pairs));
      CHECK(totals.pairs >= expected.size());
    }
    REQUIRE(batch_pairs > expected.size());  // the later batches did meet earlier pairs
    // A batch with no pairs changes nothing but the progress.
    REQUIRE(CommitPairs(store.get(), {}).ok());
    CHECK(KnownTotals(store.get()).pairs == batch_pairs);
    // A scan counts them exactly on any number of threads, in key ranges
    // cut at the tables' first rows.
    for (int threads : {1, 2, 3, 8}) {
      INFO(threads << " threads");
      PairTotals counted;
      REQUIRE(store->CountPairs(threads, &counted).ok());
      CHECK(counted.pairs == expected.size());
      CHECK(counted.units == SumOf(expected));
      CHECK(counted.pairs_exact);
    }
  }
  // Kept across opens; stats reads it, or counts the pairs when asked.
  {
    std::unique_ptr<Store> store = OpenOrDie(dir, /*create=*/false);
    const PairTotals totals = KnownTotals(store.get());
    CHECK(totals.pairs == batch_pairs);
    CHECK(totals.units == SumOf(expected));
  }
  StoreStats recorded = Stats(dir, PairCount::kRecorded);
  CHECK(recorded.nonzero_pairs == batch_pairs);
  CHECK_FALSE(recorded.nonzero_pairs_exact);
  StoreStats exact = Stats(dir, PairCount::kExact);
  CHECK(exact.nonzero_pairs == expected.size());
  CHECK(exact.nonzero_pairs_exact);
  CHECK(exact.sum_of_counts == recorded.sum_of_counts);
  CHECK(exact.sum_of_counts ==
        Approx(static_cast<double>(SumOf(expected)) / StoreConfig().scale).epsilon(1e-12));
  VerifyReport report;
  REQUIRE(VerifyStore(dir, kMemory, &report).ok());
  CHECK(TotalsProblems(report).empty());  // (random pairs: not symmetric)
  CHECK(std::any_of(report.checks.begin(), report.checks.end(), [](const std::string& c) {
    return c.find("the totals' record: at most") != std::string::npos;
  }));
}

TEST_CASE("Files written by other processes carry their totals to the commit", "[store]") {
  TestDir tmp("sg-totals-");
  const std::string dir = tmp.path() + "/store";
  const uint32_t words = 3 * kBlockColumns;
  std::unique_ptr<Store> store = NewInitializedStore(dir, NumberedVocab(words));
  std::mt19937_64 rng(7);
  Pairs expected = RandomPairs(&rng, 30, 40, words, 300);
  REQUIRE(CommitPairs(store.get(), expected).ok());
  // Two ranks' files: rows 0-9 and 10-19 meet none of the store's; then
  // rows 35-44, which do.
  uint64_t batch_pairs = expected.size();
  const std::pair<uint32_t, uint32_t> rounds[][2] = {{{0, 10}, {10, 20}}, {{35, 40}, {40, 45}}};
  for (size_t round = 0; round < 2; ++round) {
    std::vector<std::string> files;
    for (int r = 0; r < 2; ++r) {
      const auto [begin, end] = rounds[round][r];
      const Pairs pairs = RandomPairs(&rng, begin, end, words, 400);
      std::unique_ptr<Store::Batch> batch;
      REQUIRE(Store::NewDetachedBatch(fmt::format("{}/rank-{}-{}", tmp.path(), round, r), words,
                                      store->config().block_layout(), 1, &batch)
                  .ok());
      for (const auto& [rc, value] : pairs) REQUIRE(batch->Add(0, rc.first, rc.second, value).ok());
      std::vector<std::string> written;
      REQUIRE(Store::FinishDetachedBatch(std::move(batch), &written).ok());
      files.insert(files.end(), written.begin(), written.end());
      for (const auto& [rc, value] : pairs) expected[rc] += value;
      batch_pairs += pairs.size();
    }
    BatchMetadata metadata;
    metadata.finished = {{fmt::format("f{}", round), "a.txt", 10, 2}};
    REQUIRE(store->CommitBatchFiles(files, metadata).ok());
    INFO("round " << round);
    const PairTotals totals = KnownTotals(store.get());
    CHECK(totals.units == SumOf(expected));
    CHECK(totals.pairs_exact == (round == 0));
    CHECK(totals.pairs == (round == 0 ? expected.size() : batch_pairs));
  }
}

TEST_CASE("Files whose key ranges interleave give a bound, though their pairs are new", "[store]") {
  TestDir tmp("sg-totals-");
  const std::string dir = tmp.path() + "/store";
  const uint32_t words = 2 * kBlockColumns;
  std::unique_ptr<Store> store = NewInitializedStore(dir, NumberedVocab(words));
  // Rows 1 and 3 in one file, 2 and 4 in the other: no pair block in both,
  // but neither file's range is free of the other's.
  std::vector<std::string> files;
  uint64_t pairs = 0;
  for (uint32_t first : {1u, 2u}) {
    std::unique_ptr<Store::Batch> batch;
    REQUIRE(Store::NewDetachedBatch(fmt::format("{}/rank-{}", tmp.path(), first), words,
                                    store->config().block_layout(), 1, &batch)
                .ok());
    for (uint32_t row = first; row <= first + 2; row += 2) {
      REQUIRE(batch->Add(0, row, 5, 10).ok());
      ++pairs;
    }
    std::vector<std::string> written;
    REQUIRE(Store::FinishDetachedBatch(std::move(batch), &written).ok());
    files.insert(files.end(), written.begin(), written.end());
  }
  const Status s = store->CommitBatchFiles(files, BatchMetadata());
  INFO(s.ToString());
  REQUIRE(s.ok());
  CHECK(ReadPairs(store.get()).size() == pairs);
  const PairTotals totals = KnownTotals(store.get());
  CHECK(totals.pairs == pairs);
  CHECK_FALSE(totals.pairs_exact);
  CHECK(totals.units == 10 * pairs);
}

TEST_CASE("Files without totals leave a store's record unknown until it is counted again",
          "[store]") {
  TestDir tmp("sg-totals-");
  const std::string dir = tmp.path() + "/store";
  const uint32_t words = 2 * kBlockColumns;
  std::mt19937_64 rng(3);
  Pairs expected = RandomPairs(&rng, 0, 20, words, 500);
  {
    std::unique_ptr<Store> store = NewInitializedStore(dir, NumberedVocab(words));
    REQUIRE(CommitPairs(store.get(), expected).ok());
    // A file without totals, as a build before them writes: the commit
    // cannot carry the record forward, and deletes it.
    const std::string file = tmp.path() + "/plain.sst";
    rocksdb::SstFileWriter writer{rocksdb::EnvOptions(), rocksdb::Options()};
    REQUIRE(writer.Open(file).ok());
    std::string fragment;
    EncodeFragment(7, 0, {{3, 11}, {9, 5}}, &fragment);
    REQUIRE(writer.Merge(EncodePairBlockKey(7, 0), fragment).ok());
    REQUIRE(writer.Finish().ok());
    expected[{7, 3}] += 11;
    expected[{7, 9}] += 5;
    BatchMetadata metadata;
    metadata.finished = {{"old", "old.txt", 10, 2}};
    REQUIRE(store->CommitBatchFiles({file}, metadata).ok());
    CHECK_FALSE(TotalsKnown(store.get()));
  }
  // Readers count the pairs, and verify says why it could not compare.
  CHECK(Stats(dir, PairCount::kRecorded).nonzero_pairs == expected.size());
  VerifyReport report;
  REQUIRE(VerifyStore(dir, kMemory, &report).ok());
  CHECK(TotalsProblems(report).empty());
  CHECK(std::any_of(report.checks.begin(), report.checks.end(), [](const std::string& c) {
    return c.find("no totals' record") != std::string::npos;
  }));
  // The next open for writing counts them once and records them.
  std::unique_ptr<Store> store = OpenOrDie(dir, /*create=*/false);
  const PairTotals totals = KnownTotals(store.get());
  CHECK(totals.pairs == expected.size());
  CHECK(totals.pairs_exact);
  CHECK(totals.units == SumOf(expected));
}

TEST_CASE("verify reports a totals' record that disagrees with the pairs", "[store]") {
  TestDir tmp("sg-totals-");
  const std::string dir = tmp.path() + "/store";
  {
    std::unique_ptr<Store> store = NewInitializedStore(dir);
    REQUIRE(CommitPairs(store.get(), {{{0, 1}, 7}, {{1, 0}, 7}}).ok());
  }
  // A record with one pair too many, written as only another program could.
  {
    PairTotals lying;
    lying.pairs = 3;
    lying.units = 14;
    rocksdb::Options options;
    options.merge_operator = NewPairBlockMergeOperator();
    rocksdb::DB* raw = nullptr;
    REQUIRE(rocksdb::DB::Open(options, dir, &raw).ok());
    std::unique_ptr<rocksdb::DB> db(raw);
    REQUIRE(db->Put(rocksdb::WriteOptions(), kTotalsKey, EncodeTotals(lying)).ok());
  }
  CHECK(Stats(dir, PairCount::kRecorded).nonzero_pairs == 3);  // read, not counted
  VerifyReport report;
  REQUIRE(VerifyStore(dir, kMemory, &report).ok());
  const std::vector<std::string> problems = TotalsProblems(report);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].find("the totals' record: 3 non-zero pairs") != std::string::npos);
  CHECK(problems[0].find("the pairs hold 2") != std::string::npos);
}

TEST_CASE("The totals' record refuses malformed values", "[store]") {
  PairTotals totals;
  totals.pairs = 5;
  totals.pairs_exact = false;
  totals.units = (__uint128_t{3} << 64) + 9;
  const std::string value = EncodeTotals(totals);
  PairTotals back;
  REQUIRE(DecodeTotals(value, &back));
  CHECK(back.pairs == 5);
  CHECK_FALSE(back.pairs_exact);
  CHECK(back.units == totals.units);
  CHECK_FALSE(DecodeTotals(value.substr(0, value.size() - 1), &back));
  CHECK_FALSE(DecodeTotals(value + "x", &back));
  std::string bad_flags = value;
  bad_flags[1] = 4;  // an unknown flag
  CHECK_FALSE(DecodeTotals(bad_flags, &back));
}

TEST_CASE("A store of a build before the record gets it, and its flag, when opened for writing",
          "[store]") {
  TestDir tmp("sg-totals-");
  const std::string dir = tmp.path() + "/store";
  const uint32_t words = 2 * kBlockColumns;
  std::mt19937_64 rng(9);
  const Pairs expected = RandomPairs(&rng, 0, 30, words, 800);
  {
    std::unique_ptr<Store> store = NewInitializedStore(dir, NumberedVocab(words));
    CHECK(store->config().keeps_totals);
    REQUIRE(CommitPairs(store.get(), expected).ok());
  }
  // As an earlier build leaves it: its config without the flag, no record.
  {
    rocksdb::Options options;
    options.merge_operator = NewPairBlockMergeOperator();
    rocksdb::DB* raw = nullptr;
    REQUIRE(rocksdb::DB::Open(options, dir, &raw).ok());
    std::unique_ptr<rocksdb::DB> db(raw);
    std::string value;
    REQUIRE(db->Get(rocksdb::ReadOptions(), kConfigKey, &value).ok());
    StoreConfig config;
    REQUIRE(DecodeConfig(value, &config));
    REQUIRE(config.keeps_totals);
    config.keeps_totals = false;
    value.clear();
    EncodeConfig(config, &value);
    REQUIRE(db->Put(rocksdb::WriteOptions(), kConfigKey, value).ok());
    REQUIRE(db->Delete(rocksdb::WriteOptions(), kTotalsKey).ok());
  }
  {
    std::unique_ptr<Store> store;
    REQUIRE(Store::OpenForReading(dir, kMemory, &store).ok());
    CHECK_FALSE(store->config().keeps_totals);
    CHECK_FALSE(TotalsKnown(store.get()));
  }
  CHECK(Stats(dir, PairCount::kRecorded).nonzero_pairs == expected.size());  // counted
  {
    std::unique_ptr<Store> store = OpenOrDie(dir, /*create=*/false);
    CHECK(store->config().keeps_totals);
    const PairTotals totals = KnownTotals(store.get());
    CHECK(totals.pairs == expected.size());
    CHECK(totals.units == SumOf(expected));
  }
  std::unique_ptr<Store> store;
  REQUIRE(Store::OpenForReading(dir, kMemory, &store).ok());
  CHECK(store->config().keeps_totals);  // written with the record
  CHECK(KnownTotals(store.get()).pairs == expected.size());
}
