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
#include "store/store_fixture.h"
#include "streamglove/store_info.h"
#include "test_util.h"
#include "util/coding.h"
#include "util/file.h"

using namespace streamglove;
using namespace streamglove::test;

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
  CHECK(report.checks.size() == 8);

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
