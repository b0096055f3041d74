#include "cooccur/pair_run.h"

#include <catch2/catch.hpp>
#include <map>
#include <random>

#include "cooccur/pair_accumulator.h"
#include "util/file.h"

using namespace streamglove;

TEST_CASE("Runs merged in levels under a fan-in limit sum like std::map", "[cooccur]") {
  TempDir dir;
  REQUIRE(dir.Create("", "sg-runs-").ok());
  BatchRuns runs(dir.path());
  std::mt19937_64 rng(12);
  std::map<uint64_t, uint64_t> expected;
  std::vector<std::string> paths;
  for (int r = 0; r < 11; ++r) {
    std::map<uint64_t, uint64_t> one;
    for (int i = 0; i < 2000; ++i) one[PairKey(rng() % 300, rng() % 300)] += 1 + rng() % 1000;
    std::vector<PairRecord> records;
    for (const auto& [k, v] : one) {
      records.push_back({k, v});
      expected[k] += v;
    }
    paths.push_back(runs.NewPath());
    REQUIRE(WritePairRun(paths.back(), records).ok());
  }
  REQUIRE(ReduceRuns(&paths, 3, &runs).ok());
  CHECK(paths.size() <= 3);
  std::vector<std::unique_ptr<PairStream>> streams;
  for (const std::string& p : paths) streams.push_back(NewPairRunReader(p));
  std::map<uint64_t, uint64_t> got;
  REQUIRE(MergePairStreams(std::move(streams), [&](const PairRecord& r) {
    got[r.key] = r.value;
    return Status::OK();
  }).ok());
  CHECK(got == expected);
}
