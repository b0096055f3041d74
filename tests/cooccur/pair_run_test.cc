#include "cooccur/pair_run.h"

#include <filesystem>
#include <map>
#include <random>

#include <catch2/catch.hpp>

#include "cooccur/pair_accumulator.h"
#include "test_util.h"
#include "util/file.h"

using namespace streamglove;
using streamglove::test::TestDir;

TEST_CASE("Runs merged in levels under a fan-in limit sum like std::map", "[cooccur]") {
  TestDir dir("sg-runs-");
  BatchRuns runs(dir.path());
  std::mt19937_64 rng(12);
  std::map<uint64_t, uint64_t> expected;
  std::vector<PairRun> paths;
  for (int r = 0; r < 11; ++r) {
    std::map<uint64_t, uint64_t> one;
    for (int i = 0; i < 2000; ++i) one[PairKey(rng() % 300, rng() % 300)] += 1 + rng() % 1000;
    std::vector<PairRecord> records;
    for (const auto& [k, v] : one) {
      records.push_back({k, v});
      expected[k] += v;
    }
    paths.emplace_back();
    REQUIRE(WritePairRun(runs.NewPath(), records, &paths.back()).ok());
    CHECK(paths.back().records == records.size());
  }
  struct Case {
    size_t target, fan_in, runs;  // the runs left
  };
  // 11 runs: to 3 in one pass of groups of 4; to 2 under a fan-in of 3 in
  // two passes (groups of 3: 11 -> 4, then of 2: 4 -> 2); to 1 in one.
  for (const Case& c : {Case{3, 16, 3}, Case{2, 3, 2}, Case{1, 16, 1}}) {
    INFO("target " << c.target << " fan-in " << c.fan_in);
    std::vector<PairRun> reduced = paths;
    // Copies: each case reduces the same 11 runs (and deletes its inputs).
    for (PairRun& run : reduced) {
      const std::string copy = runs.NewPath();
      std::filesystem::copy_file(run.path, copy);
      run.path = copy;
    }
    const size_t before = std::distance(std::filesystem::directory_iterator(dir.path()),
                                        std::filesystem::directory_iterator());
    REQUIRE(ReduceRuns(&reduced, c.target, c.fan_in, &runs).ok());
    CHECK(reduced.size() == c.runs);
    // Merged inputs and intermediate runs are deleted.
    const size_t files = std::distance(std::filesystem::directory_iterator(dir.path()),
                                       std::filesystem::directory_iterator());
    CHECK(files == before - 11 + reduced.size());
    std::vector<std::unique_ptr<PairStream>> streams;
    for (const PairRun& p : reduced) streams.push_back(NewPairRunReader(p));
    CHECK(test::MergedPairs(std::move(streams)) == expected);
    for (const PairRun& p : reduced) std::filesystem::remove(p.path);
  }
}

TEST_CASE("A run read in key ranges gives exactly the records of each range", "[cooccur]") {
  TestDir dir("sg-runs-");
  std::mt19937_64 rng(5);
  std::map<uint64_t, uint64_t> all;
  // Several groups of kPairRunGroupRecords records, and a partial last one.
  while (all.size() < 3 * kPairRunGroupRecords + 123)
    all[PairKey(rng() % 500, rng() % 5000)] = 1 + rng() % 99;
  std::vector<PairRecord> records;
  for (const auto& [k, v] : all) records.push_back({k, v});
  PairRun run;
  REQUIRE(WritePairRun(dir.path() + "/run", records, &run).ok());
  REQUIRE(run.groups.size() == 4);
  CHECK(run.groups[1].key == records[kPairRunGroupRecords].key);

  std::vector<uint64_t> cuts{0,
                             records[1].key,
                             records[kPairRunGroupRecords].key,
                             records[kPairRunGroupRecords].key + 1,
                             PairKey(250, 0),
                             records.back().key,
                             UINT64_MAX};
  const size_t edge_cuts = cuts.size();
  const auto read = [](const PairRun& r, uint64_t begin, uint64_t end) {
    std::vector<std::unique_ptr<PairStream>> one;
    one.push_back(NewPairRunReader(r, begin, end));
    return test::MergedPairs(std::move(one));
  };
  for (int i = 0; i < 20; ++i) cuts.push_back(PairKey(rng() % 520, rng() % 5000));
  for (size_t b = 0; b < cuts.size(); ++b) {
    for (size_t e = 0; e < cuts.size(); ++e) {
      const uint64_t begin = cuts[b], end = cuts[e];
      if (end < begin) continue;
      const std::map<uint64_t, uint64_t> want(all.lower_bound(begin), all.lower_bound(end));
      INFO("[" << begin << ", " << end << ")");
      REQUIRE(read(run, begin, end) == want);
      // A slice of the run (as a distributed ingest's owner reads it): its
      // groups g0 to g1 only, its records counted from g0; read from g0 on.
      if (b >= edge_cuts || e >= edge_cuts) continue;
      for (size_t g0 = 0; g0 < run.groups.size(); ++g0) {
        for (size_t g1 = g0 + 1; g1 <= run.groups.size(); ++g1) {
          const PairRun slice{run.path,
                              {run.groups.begin() + g0, run.groups.begin() + g1},
                              run.records - g0 * kPairRunGroupRecords};
          const uint64_t from = std::max(begin, run.groups[g0].key);
          const std::map<uint64_t, uint64_t> slice_want(all.lower_bound(from),
                                                        all.lower_bound(std::max(from, end)));
          INFO("slice of groups [" << g0 << ", " << g1 << ")");
          REQUIRE(read(slice, begin, end) == slice_want);
        }
      }
    }
  }
}

TEST_CASE("A run cut short at a record's end is an error, not a shorter run", "[cooccur]") {
  TestDir dir("sg-runs-cut-");
  std::vector<PairRecord> records;
  for (uint64_t i = 0; i < 3 * kPairRunGroupRecords; ++i) records.push_back({PairKey(7, i), i + 1});
  PairRun run;
  REQUIRE(WritePairRun(dir.path() + "/run", records, &run).ok());
  REQUIRE(run.groups.size() == 3);
  // A group's first record starts where its offset says: a record's end.
  std::filesystem::resize_file(run.path, run.groups[2].offset);
  const auto read = [&](uint64_t begin, uint64_t end, size_t* records_read) {
    std::unique_ptr<PairStream> stream = NewPairRunReader(run, begin, end);
    PairRecord batch[1000];
    size_t n = 0;
    *records_read = 0;
    Status s;
    while ((s = stream->Read(batch, 1000, &n)).ok() && n > 0) *records_read += n;
    return s;
  };
  size_t got = 0;
  const Status whole = read(0, UINT64_MAX, &got);
  CHECK(whole.code() == Status::Code::kCorruption);
  CHECK_THAT(whole.message(), Catch::Contains("ends after 8192 of its 12288 records"));
  // A range that ends before the cut reads whole.
  REQUIRE(read(0, PairKey(7, 100), &got).ok());
  CHECK(got == 100);
}
