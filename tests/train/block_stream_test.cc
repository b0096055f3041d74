// BlockReader: every stored record is read once per pass, and with unit
// updates (SGNS) a pair of weight x becomes about x updates spread over the
// stream, in parts no larger than half the largest block.
#include "train/block_stream.h"

#include <sys/resource.h>

#include <cmath>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <map>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>
#include <tbb/task_arena.h>

#include "store/ranked_vocab.h"
#include "test_util.h"
#include "train/block_reader.h"
#include "train/train_fixture.h"
#include "util/crc32.h"

using namespace streamglove;
using namespace streamglove::test;

namespace {

// A raw block stream of `blocks` written as block files, as OpenBlockStream
// lays them out (12-byte records).
BlockStreamInfo WriteBlocks(const TestDir& dir,
                            const std::vector<std::vector<PairRecord32>>& blocks) {
  BlockStreamInfo info;
  info.dir = dir.path();
  for (size_t b = 0; b < blocks.size(); ++b) {
    std::string bytes(blocks[b].size() * sizeof(PairRecord32), '\0');
    if (!bytes.empty())
      std::memcpy(bytes.data(), blocks[b].data(),
                  bytes.size());  // an empty vector's data() may be null
    WriteFile(BlockPath(info, b), bytes);
    info.block_records.push_back(blocks[b].size());
    info.block_crcs.push_back(ExtendCrc32(0, bytes.data(), bytes.size()));
    info.pairs += blocks[b].size();
  }
  return info;
}

struct Pass {
  std::vector<TrainingPair> stream;  // every part, in order, each bucket prepared as a trainer does
  std::vector<size_t> part_sizes;
  std::vector<size_t> bucket_sizes;
  uint64_t records = 0;
};

Pass ReadAll(const BlockStreamInfo& info, const PairTransform& transform, uint64_t seed,
             size_t bucket_records = kBucketRecords) {
  std::vector<uint32_t> order;
  std::vector<uint64_t> seeds;
  for (uint32_t b = 0; b < info.block_records.size(); ++b) {
    order.push_back(b);
    seeds.push_back(seed * 1000 + b);
  }
  BlockReader reader(&info, order, seeds, &transform, bucket_records);
  Pass pass;
  BlockPart part;
  bool exhausted = false;
  for (;;) {
    bool done = false;
    REQUIRE(reader.Next(&part, &done).ok());
    if (done) break;
    REQUIRE_FALSE(exhausted);  // exhausted() said the part before was the last
    exhausted = reader.exhausted();
    REQUIRE(part.buckets() >= 1);
    CHECK(part.bucket_begin.front() == 0);
    CHECK(part.bucket_begin.back() == part.pairs.size());
    for (size_t k = 0; k < part.buckets(); ++k) {
      const size_t n = part.bucket_begin[k + 1] - part.bucket_begin[k];
      PrepareBucket(&part, k, transform, seed * 7919 + k);
      pass.bucket_sizes.push_back(n);
    }
    pass.records += part.records;
    pass.part_sizes.push_back(part.pairs.size());
    pass.stream.insert(pass.stream.end(), part.pairs.begin(), part.pairs.end());
  }
  CHECK(exhausted);
  return pass;
}

// The record's count as the pair's weight (as an SGNS transform without
// subsampling).
PairTransform CountTransform(bool unit_updates) {
  return {[](const PairRecord32& r) {
            return TrainingPair{r.row, r.col, 0.0f, r.count};
          },
          unit_updates};
}

}  // namespace

TEST_CASE("A block stream is read whole with each block shuffled", "[train]") {
  TestDir dir("sg-blocks-");
  std::vector<std::vector<PairRecord32>> blocks(3);
  for (uint32_t i = 0; i < 3000; ++i) blocks[i % 3].push_back({i, i + 1, 1.0f + i});
  blocks.push_back({});  // an empty block is passed over, not taken for the end
  std::swap(blocks[1], blocks[3]);
  const BlockStreamInfo info = WriteBlocks(dir, blocks);
  const Pass pass = ReadAll(info, CountTransform(false), 1);
  CHECK(pass.records == 3000);
  REQUIRE(pass.stream.size() == 3000);
  CHECK(pass.part_sizes == std::vector<size_t>{1000, 1000, 1000});
  std::vector<int> seen(3000, 0);
  size_t in_order = 0;
  for (size_t k = 0; k < pass.stream.size(); ++k) {
    const TrainingPair& p = pass.stream[k];
    REQUIRE(p.row < 3000);
    CHECK(p.col == p.row + 1);
    CHECK(p.weight == 1.0f + p.row);
    ++seen[p.row];
    if (k > 0 && p.row == pass.stream[k - 1].row + 3) ++in_order;
  }
  for (int s : seen) CHECK(s == 1);
  CHECK(in_order < 30);  // shuffled: the written order is all but gone
}

TEST_CASE("Unit updates: a pair of weight x becomes about x updates spread over the stream",
          "[train][sgns]") {
  TestDir dir("sg-blocks-");
  // Two blocks of 20,000 records: weights 0.3 (rows 0..9,999 of block 0),
  // 2.5 (the rest of block 0), 1 (block 1), and one heavy pair of 3,000.
  std::vector<std::vector<PairRecord32>> blocks(2);
  for (uint32_t i = 0; i < 20000; ++i) blocks[0].push_back({i, 0, i < 10000 ? 0.3f : 2.5f});
  for (uint32_t i = 0; i < 19999; ++i) blocks[1].push_back({20000 + i, 1, 1.0f});
  blocks[1].push_back({99999, 7, 3000.0f});
  const BlockStreamInfo info = WriteBlocks(dir, blocks);
  const Pass pass = ReadAll(info, CountTransform(true), 2);
  CHECK(pass.records == 40000);
  for (size_t s : pass.part_sizes) CHECK(s <= 10000);  // half the largest block
  std::map<uint32_t, uint64_t> copies;
  std::vector<size_t> heavy_at;
  for (size_t k = 0; k < pass.stream.size(); ++k) {
    const TrainingPair& p = pass.stream[k];
    CHECK(p.weight == 1.0f);
    ++copies[p.row];
    if (p.row == 99999) heavy_at.push_back(k);
  }
  uint64_t light = 0, medium_two = 0, medium_three = 0;
  for (const auto& [row, n] : copies) {
    if (row < 10000) {
      REQUIRE(n == 1);  // floor(0.3) = 0 or ceil = 1
      ++light;
    } else if (row < 20000) {
      REQUIRE((n == 2 || n == 3));
      (n == 2 ? medium_two : medium_three)++;
    } else if (row < 99999) {
      CHECK(n == 1);
    }
  }
  // Binomial(10,000, 0.3): mean 3,000, sd 46; Binomial(10,000, 0.5): sd 50.
  CHECK(std::abs(static_cast<double>(light) - 3000) < 5 * 46);
  CHECK(std::abs(static_cast<double>(medium_three) - 5000) < 5 * 50);
  CHECK(medium_two + medium_three == 10000);
  CHECK(copies[99999] == 3000);
  // The heavy pair's 3,000 updates fill no run of consecutive positions: at
  // most a few neighbours, as for a pair holding up to half of a part (read
  // in the second block, its copies are due over the last parts only).
  REQUIRE(heavy_at.size() == 3000);
  size_t run = 1, longest = 1;
  for (size_t k = 1; k < heavy_at.size(); ++k) {
    run = heavy_at[k] == heavy_at[k - 1] + 1 ? run + 1 : 1;
    longest = std::max(longest, run);
  }
  CHECK(longest < 30);
  CHECK(heavy_at.back() - heavy_at.front() > 5000);

  // The same seeds give the same stream; others another.
  const Pass again = ReadAll(info, CountTransform(true), 2);
  REQUIRE(again.stream.size() == pass.stream.size());
  CHECK(std::memcmp(again.stream.data(), pass.stream.data(),
                    pass.stream.size() * sizeof(TrainingPair)) == 0);
  const Pass other = ReadAll(info, CountTransform(true), 3);
  CHECK((other.stream.size() != pass.stream.size() ||
         std::memcmp(other.stream.data(), pass.stream.data(),
                     pass.stream.size() * sizeof(TrainingPair)) != 0));
}

TEST_CASE("Unit updates: a heavy pair's copies are spread over the parts left in the pass",
          "[train][sgns]") {
  TestDir dir("sg-blocks-");
  // Eight blocks of 5,000 pairs of weight 1, one heavy pair of 2,000 in the
  // first block: parts of 2,500 updates, 17 of them, each reading about
  // 2,350 records.
  std::vector<std::vector<PairRecord32>> blocks(8);
  for (uint32_t i = 0; i < 40000; ++i) blocks[i / 5000].push_back({i, 1, 1.0f});
  blocks[0][1234] = {99999, 7, 2000.0f};
  const BlockStreamInfo info = WriteBlocks(dir, blocks);
  for (uint64_t seed : {11, 12, 13}) {
    const Pass pass = ReadAll(info, CountTransform(true), seed);
    CHECK(pass.records == 40000);
    REQUIRE(pass.stream.size() == 39999 + 2000);
    std::vector<uint64_t> heavy_in_part;
    size_t at = 0;
    for (size_t size : pass.part_sizes) {
      CHECK(size <= 2500);
      heavy_in_part.push_back(0);
      for (size_t k = at; k < at + size; ++k) heavy_in_part.back() += pass.stream[k].row == 99999;
      at += size;
    }
    uint64_t copies = 0;
    for (uint64_t n : heavy_in_part) copies += n;
    CHECK(copies == 2000);
    // Read in the first two parts (the first block), its copies follow the
    // pass to the end: about 2,000 / 17 = 120 in every part from the one
    // that reads it (each part about 1/parts-left of what is still due, so
    // a part's share is near Binomial(2,000, 1/17): sd 11). All in one part,
    // as before this spreading, would be 2,000 in one.
    size_t first = 0;
    while (heavy_in_part[first] == 0) ++first;
    CHECK(first <= 1);
    const double fair = 2000.0 / static_cast<double>(heavy_in_part.size() - first);
    for (size_t p = first; p < heavy_in_part.size(); ++p) {
      CHECK(std::abs(static_cast<double>(heavy_in_part[p]) - fair) < 0.5 * fair + 40);
    }
  }
}

TEST_CASE("A block is scattered into random buckets that the trainer's shuffle completes",
          "[train]") {
  // (ReadAll prepares every bucket: converted by CountTransform, shuffled.)
  TestDir dir("sg-blocks-");
  // One block of 100,000 records in written order; buckets of 1,000.
  std::vector<std::vector<PairRecord32>> blocks(1);
  for (uint32_t i = 0; i < 100000; ++i) blocks[0].push_back({i, 7, 1.0f});
  const BlockStreamInfo info = WriteBlocks(dir, blocks);
  const Pass pass = ReadAll(info, CountTransform(false), 5, 1000);
  REQUIRE(pass.stream.size() == 100000);
  REQUIRE(pass.bucket_sizes.size() == 100);
  // Bucket sizes are Binomial(100,000, 1/100): mean 1,000, sd 99.5.
  for (size_t n : pass.bucket_sizes) CHECK(std::abs(static_cast<double>(n) - 1000) < 5 * 99.5);
  std::vector<int> seen(100000, 0);
  for (const TrainingPair& p : pass.stream) ++seen[p.row];
  for (int s : seen) REQUIRE(s == 1);
  // Uniform: the records written first are spread evenly over the stream
  // (the first 10,000 fall into each tenth of it about 1,000 times), and
  // neighbours in the stream are rarely neighbours in the block.
  std::vector<int> tenths(10, 0);
  size_t adjacent = 0;
  for (size_t k = 0; k < pass.stream.size(); ++k) {
    if (pass.stream[k].row < 10000) ++tenths[k / 10000];
    if (k > 0 && pass.stream[k].row == pass.stream[k - 1].row + 1) ++adjacent;
  }
  for (int t : tenths) CHECK(std::abs(t - 1000) < 5 * 30);  // sd of Binomial(10,000, 0.1) is 30
  CHECK(adjacent < 20);                                     // about 1 expected
  // The same seed scatters the same way; another seed otherwise.
  const Pass again = ReadAll(info, CountTransform(false), 5, 1000);
  CHECK(std::memcmp(again.stream.data(), pass.stream.data(),
                    pass.stream.size() * sizeof(TrainingPair)) == 0);
  const Pass other = ReadAll(info, CountTransform(false), 6, 1000);
  CHECK(std::memcmp(other.stream.data(), pass.stream.data(),
                    pass.stream.size() * sizeof(TrainingPair)) != 0);
}

TEST_CASE("A block shorter than its manifest says is an error naming its file", "[train]") {
  TestDir dir("sg-blocks-");
  std::vector<std::vector<PairRecord32>> blocks(1);
  for (uint32_t i = 0; i < 100; ++i) blocks[0].push_back({i, 1, 1.0f});
  BlockStreamInfo info = WriteBlocks(dir, blocks);
  info.block_records[0] = 150;
  info.pairs = 150;
  const PairTransform transform = CountTransform(false);
  BlockReader reader(&info, {0}, {1}, &transform, 16);
  BlockPart part;
  bool done = false;
  const Status s = reader.Next(&part, &done);
  REQUIRE_FALSE(s.ok());
  CHECK(s.ToString().find("block-00000") != std::string::npos);
  CHECK(s.ToString().find("shorter than its manifest") != std::string::npos);
}

TEST_CASE("A block with a flipped byte or bytes past its records is refused naming its file",
          "[train]") {
  TestDir dir("sg-blocks-");
  std::vector<std::vector<PairRecord32>> blocks(1);
  for (uint32_t i = 0; i < 100; ++i) blocks[0].push_back({i, 1, 1.0f});
  const BlockStreamInfo info = WriteBlocks(dir, blocks);
  const std::string good = ReadFile(BlockPath(info, 0));
  const PairTransform transform = CountTransform(false);
  const auto read = [&] {
    BlockReader reader(&info, {0}, {1}, &transform, 16);
    BlockPart part;
    bool done = false;
    return reader.Next(&part, &done);
  };
  REQUIRE(read().ok());
  for (size_t at : {size_t{0}, size_t{5}, size_t{600}, good.size() - 1}) {
    INFO("byte " << at);
    std::string bad = good;
    bad[at] = static_cast<char>(bad[at] ^ 0x10);
    WriteFile(BlockPath(info, 0), bad);
    const Status s = read();
    REQUIRE_FALSE(s.ok());
    CHECK(s.ToString().find("block-00000: checksum mismatch: the block is damaged") !=
          std::string::npos);
  }
  WriteFile(BlockPath(info, 0), good + std::string(12, '\0'));
  CHECK(read().ToString().find("longer than its manifest") != std::string::npos);
}

TEST_CASE("What the read-ahead thread throws comes back from Next() as an error", "[train]") {
  TestDir dir("sg-blocks-");
  std::vector<std::vector<PairRecord32>> blocks(2);
  for (uint32_t i = 0; i < 100; ++i) blocks[i % 2].push_back({i, 1, 1.0f});
  const BlockStreamInfo info = WriteBlocks(dir, blocks);
  for (const bool bad_alloc : {false, true}) {
    PairTransform throwing;
    throwing.unit_updates = true;  // records converted on the reader's thread
    throwing.convert = [bad_alloc](const PairRecord32& r) -> TrainingPair {
      if (r.row == 57) {
        if (bad_alloc) throw std::bad_alloc();
        throw std::runtime_error("row 57 refused");
      }
      return TrainingPair{r.row, r.col, 0.0f, 1.0f};
    };
    BlockReader reader(&info, {0, 1}, {1, 2}, &throwing, 16);
    BlockPart part;
    bool done = false;
    Status s;
    while (s.ok() && !done) s = reader.Next(&part, &done);
    REQUIRE_FALSE(s.ok());
    CHECK(s.ToString().find(bad_alloc ? "out of memory reading the block stream"
                                      : "row 57 refused") != std::string::npos);
  }
}

TEST_CASE("Unit updates: parts made only of a heavy pair's last copies do not end the stream",
          "[train][sgns]") {
  TestDir dir("sg-blocks-");
  // Parts of one update (half the largest block): after the first part, the
  // heavy pair's 99 remaining copies fill 99 parts that stand for no new
  // stored record.
  std::vector<std::vector<PairRecord32>> blocks(1);
  blocks[0].push_back({0, 1, 100.0f});
  blocks[0].push_back({1, 2, 1.0f});
  const BlockStreamInfo info = WriteBlocks(dir, blocks);
  const Pass pass = ReadAll(info, CountTransform(true), 4);
  CHECK(pass.records == 2);
  CHECK(pass.stream.size() == 101);
}

TEST_CASE("Blocks scattered on several threads are the parts one thread makes, checked alike",
          "[train]") {
  TestDir dir("sg-blocks-");
  // Blocks of several read chunks (64 Ki records), so that 4 threads take
  // a segment each, and one of less than a chunk (one segment).
  const std::vector<size_t> sizes = {300000, 140000, 1000};
  std::vector<std::vector<PairRecord32>> blocks(sizes.size());
  uint32_t next = 0;
  for (size_t b = 0; b < sizes.size(); ++b) {
    for (size_t i = 0; i < sizes[b]; ++i, ++next) {
      blocks[b].push_back({next % 977, next / 977, 1.0f + static_cast<float>(next % 5)});
    }
  }
  const BlockStreamInfo info = WriteBlocks(dir, blocks);
  tbb::task_arena arena(4);
  for (bool unit_updates : {false, true}) {
    INFO("unit updates " << unit_updates);
    const PairTransform transform = CountTransform(unit_updates);
    const auto parts = [&](tbb::task_arena* scatter) {
      BlockReader reader(&info, {2, 0, 1}, {7, 8, 9}, &transform, kBucketRecords, scatter);
      std::vector<std::pair<std::vector<size_t>, std::vector<TrainingPair>>> all;
      BlockPart part;
      for (bool done = false;;) {
        REQUIRE(reader.Next(&part, &done).ok());
        if (done) break;
        all.emplace_back(part.bucket_begin, part.pairs);
      }
      return all;
    };
    const auto one = parts(nullptr), four = parts(&arena);
    REQUIRE(one.size() == four.size());
    for (size_t p = 0; p < one.size(); ++p) {
      CHECK(one[p].first == four[p].first);
      REQUIRE(one[p].second.size() == four[p].second.size());
      CHECK(std::memcmp(one[p].second.data(), four[p].second.data(),
                        one[p].second.size() * sizeof(TrainingPair)) == 0);
    }
  }
  const std::string good = ReadFile(BlockPath(info, 0));
  const PairTransform transform = CountTransform(false);
  const auto read_first = [&] {
    BlockReader reader(&info, {0}, {1}, &transform, kBucketRecords, &arena);
    BlockPart part;
    bool done = false;
    return reader.Next(&part, &done);
  };
  for (size_t at : {size_t{3}, good.size() / 2 + 1, good.size() - 2}) {
    INFO("byte " << at);
    std::string bad = good;
    bad[at] = static_cast<char>(bad[at] ^ 0x01);
    WriteFile(BlockPath(info, 0), bad);
    CHECK(read_first().ToString().find("block-00000: checksum mismatch") != std::string::npos);
  }
  WriteFile(BlockPath(info, 0), good.substr(0, good.size() - 12));
  CHECK(read_first().ToString().find("shorter than its manifest") != std::string::npos);
  WriteFile(BlockPath(info, 0), good + std::string(12, '\0'));
  CHECK(read_first().ToString().find("longer than its manifest") != std::string::npos);
}

namespace {

// While alive, a file of this process may not grow past `bytes`: a write
// beyond fails with EFBIG, as one on a full disk fails (SIGXFSZ ignored).
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    REQUIRE(::getrlimit(RLIMIT_FSIZE, &before_) == 0);
    old_handler_ = std::signal(SIGXFSZ, SIG_IGN);
    struct rlimit limit = before_;
    limit.rlim_cur = bytes;
    REQUIRE(::setrlimit(RLIMIT_FSIZE, &limit) == 0);
  }
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &before_);
    std::signal(SIGXFSZ, old_handler_);
  }

 private:
  struct rlimit before_;
  void (*old_handler_)(int);
};

}  // namespace

// A full disk while the block stream was built left the block
// files written so far, holding the disk until a training rebuilt them.
TEST_CASE("A block stream whose build fails leaves no block files, and is rebuilt whole",
          "[train]") {
  TrainFixture f;
  std::unique_ptr<Store> store;
  REQUIRE(Store::OpenForReading(f.store, 64 << 20, &store).ok());
  const RankedVocab ranked(store->config(), store->vocab(), 1, 0);
  const std::string dir = f.dir.path() + "/blocks";
  const size_t block_bytes = size_t{256} << 10;  // several blocks
  for (const BlockCompression compression : {BlockCompression::kNone, BlockCompression::kZstd}) {
    BlockStreamInfo info;
    Status failed;
    {
      const FileSizeLimit limit(40 << 10);  // more than a write buffer of 32 KiB
      failed = OpenBlockStream(store.get(), dir, ranked, block_bytes, BlockLayout::kRandom,
                               compression, &info);
    }
    INFO(failed.ToString());
    CHECK(failed.message().find("/blocks/block-") != std::string::npos);
    CHECK(failed.message().find("File too large") != std::string::npos);
    CHECK_FALSE(PathExists(dir));

    REQUIRE(OpenBlockStream(store.get(), dir, ranked, block_bytes, BlockLayout::kRandom,
                            compression, &info)
                .ok());
    CHECK(info.built);
    CHECK(info.block_records.size() > 1);
    const PairTransform transform = CountTransform(false);
    CHECK(ReadAll(info, transform, 1).records == info.pairs);
    std::filesystem::remove_all(dir);
  }
}
