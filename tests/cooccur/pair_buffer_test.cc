#include "cooccur/pair_buffer.h"

#include <map>
#include <random>

#include <catch2/catch.hpp>

#include "cooccur/dense_region.h"
#include "cooccur/pair_accumulator.h"
#include "cooccur/pair_run.h"
#include "test_util.h"
#include "util/file.h"

using namespace streamglove;

TEST_CASE("PairBuffer's radix sort and combine equal std::map sums", "[cooccur]") {
  std::mt19937_64 rng(9);
  for (uint32_t vocab : {1u, 7u, 1000u, 70000u, 3000000u}) {
    INFO("vocab " << vocab);
    PairBuffer buffer(50000, 50000, vocab);
    std::map<uint64_t, uint64_t> expected;
    while (!buffer.full()) {
      const uint32_t row = static_cast<uint32_t>(rng() % vocab),
                     col = static_cast<uint32_t>(rng() % std::min(vocab, 300u));
      const uint64_t value = 1 + rng() % 360360;
      buffer.Add(row, col, value);
      expected[PairKey(row, col)] += value;
    }
    buffer.SortAndCombine();
    REQUIRE(buffer.size() == expected.size());
    auto it = expected.begin();
    for (const PairRecord& r : buffer.records()) {
      CHECK(r.key == it->first);
      CHECK(r.value == it->second);
      ++it;
    }
  }
}

TEST_CASE("DenseRegion holds GloVe's region and drains it in order", "[cooccur]") {
  const uint32_t vocab = 500;
  const uint64_t product = DenseRegion::MaxProductForBytes(vocab, 64 << 10);
  DenseRegion region(vocab, product);
  CHECK(region.memory_bytes() <= (64 << 10));
  CHECK(region.Contains(0, vocab - 1));
  CHECK_FALSE(region.Contains(vocab - 1, vocab - 1));
  std::map<uint64_t, uint64_t> expected;
  std::mt19937_64 rng(4);
  for (int i = 0; i < 100000; ++i) {
    const uint32_t row = static_cast<uint32_t>(rng() % vocab),
                   col = static_cast<uint32_t>(rng() % vocab);
    if (!region.Contains(row, col)) continue;
    CHECK((uint64_t{row} + 1) * (col + 1) <= product);
    region.Add(row, col, 3);
    expected[PairKey(row, col)] += 3;
  }
  auto stream = region.NewDrainStream();
  std::map<uint64_t, uint64_t> got;
  uint64_t previous = 0;
  for (;;) {
    PairRecord r;
    bool done = false;
    REQUIRE(stream->Next(&r, &done).ok());
    if (done) break;
    CHECK((got.empty() || r.key > previous));
    previous = r.key;
    got[r.key] = r.value;
  }
  CHECK(got == expected);
  bool done = false;
  PairRecord r;
  REQUIRE(region.NewDrainStream()->Next(&r, &done).ok());
  CHECK(done);  // drained cells are zero
}

TEST_CASE("A pair buffer grows to its capacity before it spills a run", "[cooccur]") {
  TempDir dir;
  REQUIRE(dir.Create("", "sg-grow-").ok());
  BatchRuns runs(dir.path());
  // Capacity 4096 records, 1024 at first; no dense region.
  PairAccumulator pairs(/*vocab_size=*/1000, /*max_product=*/0, 4096, 1024, &runs);
  std::map<uint64_t, uint64_t> expected;
  uint32_t next = 0;
  auto add_distinct = [&](int n) {
    for (int i = 0; i < n; ++i, ++next) {
      pairs.Add(next / 1000, next % 1000, 3);
      expected[PairKey(next / 1000, next % 1000)] += 3;
    }
  };
  add_distinct(4000);  // distinct keys: combining frees nothing, so it grows 1024 -> 2048 -> 4096
  CHECK(pairs.spilled_runs() == 0);
  CHECK(runs.Take().empty());
  add_distinct(200);  // past the capacity: now it spills
  CHECK(pairs.spilled_runs() == 1);
  std::vector<PairRun> spilled = runs.Take();
  REQUIRE(spilled.size() == 1);
  pairs.FinishBatch();
  std::vector<std::unique_ptr<PairStream>> streams;
  streams.push_back(NewPairRunReader(spilled[0]));
  streams.push_back(NewPairSpanStream(pairs.sorted_records()));
  CHECK(test::MergedPairs(std::move(streams)) == expected);
}
