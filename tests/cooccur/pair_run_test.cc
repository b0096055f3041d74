#include "cooccur/pair_run.h"

#include <map>
#include <random>

#include <catch2/catch.hpp>

#include "cooccur/pair_accumulator.h"
#include "test_util.h"
#include "util/file.h"

using namespace streamglove;

TEST_CASE("Runs merged in levels under a fan-in limit sum like std::map", "[cooccur]") {
  TempDir dir;
  REQUIRE(dir.Create("", "sg-runs-").ok());
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
  REQUIRE(ReduceRuns(&paths, 3, &runs).ok());
  CHECK(paths.size() <= 3);
  std::vector<std::unique_ptr<PairStream>> streams;
  for (const PairRun& p : paths) streams.push_back(NewPairRunReader(p));
  CHECK(test::MergedPairs(std::move(streams)) == expected);
}

TEST_CASE("A run read in key ranges gives exactly the records of each range", "[cooccur]") {
  TempDir dir;
  REQUIRE(dir.Create("", "sg-runs-").ok());
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
  for (int i = 0; i < 20; ++i) cuts.push_back(PairKey(rng() % 520, rng() % 5000));
  for (uint64_t begin : cuts) {
    for (uint64_t end : cuts) {
      if (end < begin) continue;
      std::map<uint64_t, uint64_t> want(all.lower_bound(begin), all.lower_bound(end)), got;
      auto reader = NewPairRunReader(run, begin, end);
      for (;;) {
        PairRecord r;
        bool done = false;
        REQUIRE(reader->Next(&r, &done).ok());
        if (done) break;
        got[r.key] = r.value;
      }
      INFO("[" << begin << ", " << end << ")");
      REQUIRE(got == want);
    }
  }
}
