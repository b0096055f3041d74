#include "store/ranked_vocab.h"

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
