#include "store/pair_block_merge_operator.h"

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

TEST_CASE("A malformed merge operand is a corruption and never read as zero", "[store]") {
  TestDir tmp("sg-store-");
  {
    std::unique_ptr<Store> store = NewInitializedStore(tmp.path(), NumberedVocab(10));
    REQUIRE(CommitPairs(store.get(), {{{4, 1}, 10}, {{5, 1}, 10}}).ok());
  }
  {
    // Behind the store's back: a raw RocksDB merge of a truncated fragment.
    rocksdb::Options options;
    options.merge_operator = NewPairBlockMergeOperator();
    rocksdb::DB* raw = nullptr;
    REQUIRE(rocksdb::DB::Open(options, tmp.path(), &raw).ok());
    std::unique_ptr<rocksdb::DB> db(raw);
    REQUIRE(db->Merge(rocksdb::WriteOptions(), EncodePairBlockKey(5, 0), "\x02\x01\x01").ok());
    REQUIRE(db->Close().ok());
  }
  std::unique_ptr<Store> store = OpenOrDie(tmp.path(), false);
  std::vector<uint32_t> rows;
  const Status s = store->ForEachPair([&](uint32_t row, uint32_t, uint64_t) {
    rows.push_back(row);
    return Status::OK();
  });
  CHECK(s.code() == Status::Code::kCorruption);
  CHECK(s.message().find(tmp.path() + ": pair blocks after row 4 block 0: ") == 0);
  CHECK(rows == std::vector<uint32_t>{4});
}
