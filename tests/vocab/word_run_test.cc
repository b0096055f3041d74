// Word runs: what a writer adds a reader gives back (words with any bytes,
// counts up to 2^64 - 1), and MergeWordRuns sums equal words across runs, in
// order, whatever the fan-in (merging in passes when runs outnumber it),
// against a std::map of the same records, and deletes the runs.
#include "vocab/word_run.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "test_util.h"

using namespace streamglove;
using namespace streamglove::test;

TEST_CASE("A word run reads back what was written", "[vocab]") {
  TestDir dir("sg-word-run-");
  const std::vector<std::pair<std::string, uint64_t>> records = {
      {"", 1},
      {"a", 0},
      {std::string("nul\0byte", 8), 7},
      {"\xff\xfe", UINT64_MAX},
      {std::string(5000, 'x'), 123456789012345}};
  const std::string path = dir.path() + "/run";
  WordRunWriter writer;
  REQUIRE(writer.Open(path).ok());
  for (const auto& [word, count] : records) REQUIRE(writer.Add(word, count).ok());
  REQUIRE(writer.Finish().ok());
  WordRunReader reader;
  REQUIRE(reader.Open(path).ok());
  for (const auto& [word, count] : records) {
    bool done = true;
    REQUIRE(reader.Next(&done).ok());
    REQUIRE_FALSE(done);
    CHECK(reader.word() == word);
    CHECK(reader.count() == count);
  }
  bool done = false;
  REQUIRE(reader.Next(&done).ok());
  CHECK(done);
}

TEST_CASE("Word runs merge to the summed counts in order, at any fan-in", "[vocab]") {
  std::mt19937_64 rng(8);
  for (size_t fan_in : {size_t{2}, size_t{3}, size_t{64}}) {
    INFO("fan-in " << fan_in);
    TestDir dir("sg-word-merge-");
    std::map<std::string, uint64_t> want;
    std::vector<std::string> runs;
    for (int r = 0; r < 9; ++r) {
      // A run is sorted by word and holds each word once.
      std::map<std::string, uint64_t> run;
      for (int i = 0; i < 200; ++i) run[fmt::format("w{}", rng() % 500)] += 1 + rng() % 9;
      runs.push_back(fmt::format("{}/run-{}", dir.path(), r));
      WordRunWriter writer;
      REQUIRE(writer.Open(runs.back()).ok());
      for (const auto& [word, count] : run) {
        REQUIRE(writer.Add(word, count).ok());
        want[word] += count;
      }
      REQUIRE(writer.Finish().ok());
    }
    std::vector<std::pair<std::string, uint64_t>> got;
    REQUIRE(MergeWordRuns(runs, WordCountTable::Order::kByWord, fan_in, dir.path(),
                          [&](std::string_view word, uint64_t count) {
                            got.emplace_back(std::string(word), count);
                            return Status::OK();
                          })
                .ok());
    CHECK(got == std::vector<std::pair<std::string, uint64_t>>(want.begin(), want.end()));
    for (const std::string& run : runs) CHECK_FALSE(std::filesystem::exists(run));
  }
}
