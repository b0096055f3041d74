#include "store/pair_block.h"

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <tuple>

#include <catch2/catch.hpp>
#include <rocksdb/merge_operator.h>

#include "store/pair_block_merge_operator.h"
#include "util/coding.h"

using namespace streamglove;

namespace {

std::vector<ColumnValue> RandomEntries(std::mt19937_64* rng, uint32_t block, size_t max_n) {
  std::set<uint32_t> cols;
  const size_t n = std::uniform_int_distribution<size_t>(0, max_n)(*rng);
  std::uniform_int_distribution<uint32_t> col(0, kBlockColumns - 1);
  while (cols.size() < n) cols.insert(block * kBlockColumns + col(*rng));
  std::vector<ColumnValue> entries;
  for (uint32_t c : cols) {
    // Small, medium and huge values: 1-, 2- and 10-byte varints.
    const int kind = std::uniform_int_distribution<int>(0, 2)(*rng);
    const uint64_t v = kind == 0   ? 1 + (*rng)() % 100
                       : kind == 1 ? 1 + (*rng)() % 10000
                                   : std::max<uint64_t>(1, (*rng)());
    entries.push_back(ColumnValue{c, v});
  }
  return entries;
}

std::string Fragment(uint32_t block, const std::vector<ColumnValue>& entries, uint32_t row = 0) {
  std::string out;
  EncodeFragment(row, block, entries, &out);
  return out;
}

// Hand-built fragment: n, then (delta, value) pairs.
std::string RawFragment(uint64_t n, const std::vector<std::pair<uint64_t, uint64_t>>& pairs) {
  std::string out;
  PutVarint64(&out, n);
  for (const auto& [delta, value] : pairs) {
    PutVarint64(&out, delta);
    PutVarint64(&out, value);
  }
  return out;
}

bool SameEntries(const std::vector<ColumnValue>& a, const std::vector<ColumnValue>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].col != b[i].col || a[i].value != b[i].value) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("Pair-block keys round trip and sort by row then block", "[store]") {
  std::mt19937_64 rng(7);
  std::vector<std::pair<std::tuple<uint32_t, uint32_t>, std::string>> keys;
  for (int i = 0; i < 2000; ++i) {
    const uint32_t row =
        i % 3 == 0 ? static_cast<uint32_t>(rng()) : static_cast<uint32_t>(rng() % 300);
    const uint32_t block =
        i % 5 == 0 ? static_cast<uint32_t>(rng()) : static_cast<uint32_t>(rng() % 300);
    const std::string key = EncodePairBlockKey(row, block);
    REQUIRE(key.size() == 9);
    REQUIRE(key[0] == kPairKeyPrefix);
    uint32_t r = 0, b = 0;
    REQUIRE(DecodePairBlockKey(key, &r, &b));
    REQUIRE(std::tie(r, b) == std::tie(row, block));
    keys.emplace_back(std::make_tuple(row, block), key);
  }
  for (size_t i = 1; i < keys.size(); ++i) {
    CHECK((keys[i - 1].first < keys[i].first) == (keys[i - 1].second < keys[i].second));
  }
  uint32_t r = 0, b = 0;
  CHECK_FALSE(DecodePairBlockKey("", &r, &b));
  CHECK_FALSE(DecodePairBlockKey(EncodePairBlockKey(1, 2).substr(0, 8), &r, &b));
  CHECK_FALSE(DecodePairBlockKey(EncodePairBlockKey(1, 2) + "x", &r, &b));
  std::string vocab_key = EncodePairBlockKey(1, 2);
  vocab_key[0] = 'V';
  CHECK_FALSE(DecodePairBlockKey(vocab_key, &r, &b));
}

TEST_CASE("Fragments round trip", "[store]") {
  std::mt19937_64 rng(42);
  const uint32_t last_block = UINT32_MAX / kBlockColumns;  // the block holding column 2^32-1
  for (int iter = 0; iter < 500; ++iter) {
    const uint32_t block = iter % 10 == 0 ? last_block : static_cast<uint32_t>(rng() % 1000);
    const size_t max_n = iter % 50 == 0 ? kBlockColumns : 64;
    const std::vector<ColumnValue> entries = RandomEntries(&rng, block, max_n);
    const std::string fragment = Fragment(block, entries);
    std::vector<ColumnValue> decoded = {{1, 1}};  // replaced, not appended to
    REQUIRE(DecodeFragment(0, block, fragment, &decoded));
    REQUIRE(SameEntries(decoded, entries));
  }
  // The extremes: first and last column of a block, the largest value.
  const std::vector<ColumnValue> edges = {{5 * kBlockColumns, UINT64_MAX},
                                          {6 * kBlockColumns - 1, 1}};
  std::vector<ColumnValue> decoded;
  REQUIRE(DecodeFragment(0, 5, Fragment(5, edges), &decoded));
  CHECK(SameEntries(decoded, edges));
  const std::vector<ColumnValue> top = {{UINT32_MAX, 3}};
  REQUIRE(DecodeFragment(0, last_block, Fragment(last_block, top), &decoded));
  CHECK(SameEntries(decoded, top));
}

TEST_CASE("Malformed fragments are rejected", "[store]") {
  std::vector<ColumnValue> out;
  const std::string good = Fragment(3, {{3 * kBlockColumns + 1, 5}, {3 * kBlockColumns + 9, 300}});
  REQUIRE(DecodeFragment(0, 3, good, &out));
  for (size_t len = 0; len < good.size(); ++len) {
    INFO("truncated to " << len);
    CHECK_FALSE(DecodeFragment(0, 3, good.substr(0, len), &out));
  }
  CHECK_FALSE(DecodeFragment(0, 3, good + '\0', &out));                           // trailing bytes
  CHECK_FALSE(DecodeFragment(0, 3, RawFragment(1, {{0, 0}}), &out));              // zero value
  CHECK_FALSE(DecodeFragment(0, 3, RawFragment(2, {{4, 1}, {0, 1}}), &out));      // repeated column
  CHECK_FALSE(DecodeFragment(0, 3, RawFragment(1, {{kBlockColumns, 1}}), &out));  // past the block
  CHECK_FALSE(DecodeFragment(0, 3, RawFragment(2, {{4000, 1}, {96, 1}}), &out));  // ends at 4096
  CHECK(DecodeFragment(0, 3, RawFragment(2, {{4000, 1}, {95, 1}}), &out));        // ends at 4095
  CHECK_FALSE(DecodeFragment(0, 3, RawFragment(kBlockColumns + 1, {}), &out));  // too many entries
  CHECK_FALSE(DecodeFragment(0, 3, RawFragment(UINT64_MAX, {}), &out));
  // Over-long varint (11 bytes).
  CHECK_FALSE(DecodeFragment(0, 3, std::string(10, '\x80') + '\x01', &out));
  // A block past column 2^32 - 1 holds nothing.
  const uint32_t beyond = UINT32_MAX / kBlockColumns + 1;
  CHECK_FALSE(DecodeFragment(0, beyond, RawFragment(1, {{0, 1}}), &out));
  CHECK(DecodeFragment(0, beyond, RawFragment(0, {}), &out));
  CHECK(out.empty());
}

TEST_CASE("SumPairBlockFragments sums like a std::map", "[store]") {
  std::mt19937_64 rng(3);
  for (int iter = 0; iter < 300; ++iter) {
    const uint32_t block = static_cast<uint32_t>(rng() % 100);
    const size_t k = 1 + rng() % 8;
    std::map<uint32_t, uint64_t> expected;
    std::vector<std::string> fragments;
    for (size_t i = 0; i < k; ++i) {
      std::vector<ColumnValue> entries = RandomEntries(&rng, block, iter % 20 == 0 ? 3000 : 40);
      for (ColumnValue& e : entries) e.value = 1 + e.value % (uint64_t{1} << 40);  // no overflow
      for (const ColumnValue& e : entries) expected[e.col] += e.value;
      fragments.push_back(Fragment(block, entries));
    }
    const std::vector<std::string_view> views(fragments.begin(), fragments.end());
    std::string sum;
    REQUIRE(SumPairBlockFragments(0, block, views, &sum));
    std::vector<ColumnValue> got;
    REQUIRE(DecodeFragment(0, block, sum, &got));
    std::vector<ColumnValue> want;
    for (const auto& [col, value] : expected) want.push_back(ColumnValue{col, value});
    REQUIRE(SameEntries(got, want));
  }
  std::string sum;
  REQUIRE(SumPairBlockFragments(0, 0, {}, &sum));
  CHECK(sum == std::string(1, '\0'));
}

TEST_CASE("SumPairBlockFragments fails on overflow and malformed fragments", "[store]") {
  const std::string big = Fragment(0, {{7, UINT64_MAX - 1}});
  const std::string one = Fragment(0, {{7, 1}});
  const std::string two = Fragment(0, {{7, 2}});
  std::string sum;
  REQUIRE(SumPairBlockFragments(0, 0, {big, one}, &sum));
  CHECK(sum == Fragment(0, {{7, UINT64_MAX}}));
  CHECK_FALSE(SumPairBlockFragments(0, 0, {big, two}, &sum));
  CHECK_FALSE(SumPairBlockFragments(0, 0, {big, one, one}, &sum));
  CHECK_FALSE(SumPairBlockFragments(0, 0, {one, "\x01"}, &sum));
  CHECK_FALSE(SumPairBlockFragments(0, 0, {"\x01\x00\x00"}, &sum));
  // No column of a block past 2^32 - 1 exists.
  CHECK_FALSE(SumPairBlockFragments(0, UINT32_MAX / kBlockColumns + 1, {one}, &sum));
}

TEST_CASE("PairBlockMergeOperator merges through RocksDB's interface", "[store]") {
  const std::shared_ptr<rocksdb::MergeOperator> op = NewPairBlockMergeOperator();
  CHECK(std::string(op->Name()) == "streamglove.PairBlockSum");
  const std::string key = EncodePairBlockKey(9, 2);
  const std::string base = Fragment(2, {{2 * kBlockColumns + 1, 10}});
  const std::string a = Fragment(2, {{2 * kBlockColumns + 1, 5}, {2 * kBlockColumns + 8, 1}});
  const std::string b = Fragment(2, {{2 * kBlockColumns, 4}});
  const rocksdb::Slice base_slice(base);
  const std::vector<rocksdb::Slice> operands = {a, b};
  std::string result;
  rocksdb::Slice existing_operand;
  rocksdb::MergeOperator::MergeOperationOutput out(result, existing_operand);
  using Input = rocksdb::MergeOperator::MergeOperationInput;
  // Columns are relative to the block of the key: fragments of block 2 are
  // read as block 3's under key (9, 3), and are invalid for a block past 2^32.
  const std::string key3 = EncodePairBlockKey(9, 3), key_beyond = EncodePairBlockKey(9, UINT32_MAX);
  const rocksdb::Slice key_slice(key), block3(key3), beyond(key_beyond), meta("M/config");

  REQUIRE(op->FullMergeV2(Input(key_slice, &base_slice, operands, nullptr), &out));
  CHECK(result ==
        Fragment(
            2, {{2 * kBlockColumns, 4}, {2 * kBlockColumns + 1, 15}, {2 * kBlockColumns + 8, 1}}));
  REQUIRE(op->FullMergeV2(Input(key_slice, nullptr, operands, nullptr), &out));
  CHECK(result ==
        Fragment(2,
                 {{2 * kBlockColumns, 4}, {2 * kBlockColumns + 1, 5}, {2 * kBlockColumns + 8, 1}}));

  std::string partial;
  REQUIRE(op->PartialMergeMulti(key_slice, std::deque<rocksdb::Slice>{a, b}, &partial, nullptr));
  CHECK(partial == result);

  REQUIRE(op->FullMergeV2(Input(block3, nullptr, operands, nullptr), &out));
  CHECK(result ==
        Fragment(3,
                 {{3 * kBlockColumns, 4}, {3 * kBlockColumns + 1, 5}, {3 * kBlockColumns + 8, 1}}));
  CHECK_FALSE(op->FullMergeV2(Input(beyond, nullptr, operands, nullptr), &out));
  CHECK_FALSE(op->FullMergeV2(Input(meta, nullptr, operands, nullptr), &out));
  const std::vector<rocksdb::Slice> bad = {a, rocksdb::Slice("\x02\x01", 2)};
  CHECK_FALSE(op->FullMergeV2(Input(key_slice, &base_slice, bad, nullptr), &out));
  CHECK_FALSE(op->PartialMergeMulti(
      key_slice, std::deque<rocksdb::Slice>{a, rocksdb::Slice("\x05")}, &partial, nullptr));
}

TEST_CASE("A layout's blocks partition each row's columns in key order", "[store]") {
  std::mt19937_64 rng(11);
  // Rows and columns on both sides of kWideBlockFromId, and at the ends.
  const auto id = [&rng]() -> uint32_t {
    switch (rng() % 4) {
      case 0:
        return static_cast<uint32_t>(rng() % (2 * kWideBlockFromId));
      case 1:
        return kWideBlockFromId - 1 + static_cast<uint32_t>(rng() % 3);
      case 2:
        return UINT32_MAX - static_cast<uint32_t>(rng() % 3);
      default:
        return static_cast<uint32_t>(rng());
    }
  };
  for (int i = 0; i < 20000; ++i) {
    const uint32_t row = id(), a = id(), b = id();
    const uint32_t lo = std::min(a, b), hi = std::max(a, b);
    INFO("row " << row << " columns " << lo << ", " << hi);
    // Narrow: every block is kBlockColumns wide.
    CHECK(PairBlockOf(PairBlockLayout::kNarrow, row, lo) == lo / kBlockColumns);
    // Wide: the block holds its column, within the width a reader accepts...
    const uint32_t block = PairBlockOf(PairBlockLayout::kWide, row, lo);
    const uint64_t first = uint64_t{block} * kBlockColumns;
    const uint64_t width = PairBlockMaxColumns(row, block);
    CHECK(first <= lo);
    CHECK(lo < first + width);
    const bool wide = row >= kWideBlockFromId || lo >= kWideBlockFromId;
    CHECK(width == (wide ? kWideBlockColumns : kBlockColumns));
    CHECK(first % width == 0);
    // ...and blocks follow the columns: a later column is in the same block
    // exactly when it lies inside it, else in a later one.
    const uint32_t later = PairBlockOf(PairBlockLayout::kWide, row, hi);
    CHECK(later >= block);
    CHECK((later == block) == (hi < first + width));
  }
}

TEST_CASE("Wide blocks' fragments round trip and are checked against their width", "[store]") {
  const uint32_t wide_row = kWideBlockFromId + 7, narrow_row = 12;
  const uint32_t first_wide = kWideBlockFromId / kBlockColumns;  // the block at column 65536
  std::vector<ColumnValue> decoded;
  // A row of a rare word: its block 0 spans columns 0 to 65535.
  const std::vector<ColumnValue> rare = {{0, 3}, {kBlockColumns, 1}, {kWideBlockColumns - 1, 2}};
  REQUIRE(DecodeFragment(wide_row, 0, Fragment(0, rare, wide_row), &decoded));
  CHECK(SameEntries(decoded, rare));
  // A frequent row's columns from 65536 on: wide as well.
  const std::vector<ColumnValue> tail = {{kWideBlockFromId + 1, 5},
                                         {kWideBlockFromId + kWideBlockColumns - 1, 1}};
  REQUIRE(DecodeFragment(narrow_row, first_wide, Fragment(first_wide, tail, narrow_row), &decoded));
  CHECK(SameEntries(decoded, tail));
  // A full wide block, every column.
  std::vector<ColumnValue> full;
  for (uint32_t c = 0; c < kWideBlockColumns; ++c) full.push_back({c, 1});
  REQUIRE(DecodeFragment(wide_row, 0, Fragment(0, full, wide_row), &decoded));
  CHECK(decoded.size() == kWideBlockColumns);
  // Past a wide block's end, or more entries than its columns: malformed.
  CHECK_FALSE(DecodeFragment(wide_row, 0, RawFragment(1, {{kWideBlockColumns, 1}}), &decoded));
  CHECK_FALSE(DecodeFragment(wide_row, 0, RawFragment(kWideBlockColumns + 1, {}), &decoded));
  // A frequent row below 65536 keeps narrow blocks: what a wide one accepts is refused there.
  CHECK_FALSE(DecodeFragment(narrow_row, 0, Fragment(0, rare, wide_row), &decoded));
  CHECK_FALSE(DecodeFragment(narrow_row, 0, RawFragment(kBlockColumns + 1, {}), &decoded));
  // The merge operator reads a wide key's fragments with the wide width.
  std::string sum;
  REQUIRE(SumPairBlockFragments(
      wide_row, 0, {Fragment(0, rare, wide_row), Fragment(0, {{1, 4}}, wide_row)}, &sum));
  REQUIRE(DecodeFragment(wide_row, 0, sum, &decoded));
  const std::vector<ColumnValue> summed = {
      {0, 3}, {1, 4}, {kBlockColumns, 1}, {kWideBlockColumns - 1, 2}};
  CHECK(SameEntries(decoded, summed));
  CHECK_FALSE(SumPairBlockFragments(narrow_row, 0, {Fragment(0, rare, wide_row)}, &sum));
}
