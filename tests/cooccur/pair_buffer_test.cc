#include "cooccur/pair_buffer.h"

#include <algorithm>
#include <map>
#include <random>
#include <span>
#include <thread>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "cooccur/dense_region.h"
#include "cooccur/pair_accumulator.h"
#include "cooccur/pair_run.h"
#include "test_util.h"
#include "util/file.h"

using namespace streamglove;
using streamglove::test::TestDir;

TEST_CASE("PairBuffer's radix sort and combine equal std::map sums", "[cooccur]") {
  std::mt19937_64 rng(9);
  // 1, 2, 3 and 4 radix passes (an odd count leaves the new records in the
  // scratch array, which the merge then writes over).
  for (uint32_t vocab : {1u, 7u, 1000u, 5000u, 70000u, 3000000u}) {
    INFO("vocab " << vocab);
    PairBuffer buffer(50000, vocab);
    std::map<uint64_t, uint64_t> expected;
    // Combines after refills of different sizes: each merges new records
    // into the sorted ones, as an accumulator that keeps appending does.
    for (size_t refill : {50000u, 20000u, 1u, 3000u, 0u, 40000u}) {
      INFO("refill " << refill);
      for (size_t i = 0; i < refill && !buffer.full(); ++i) {
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
    buffer.Clear();
    CHECK(buffer.size() == 0);
    buffer.Add(0, 0, 5);
    buffer.SortAndCombine();
    REQUIRE(buffer.size() == 1);
    CHECK(buffer.records()[0].value == 5);
  }
}

TEST_CASE("DenseRegion holds GloVe's region and drains it in order", "[cooccur]") {
  const uint32_t vocab = 500;
  // A symmetric region keeps each pair once: it covers larger products in
  // the same bytes.
  const bool symmetric = GENERATE(false, true);
  // One partition of deferred adds, or several.
  const size_t bytes = GENERATE(size_t{64} << 10, size_t{1} << 20);
  // One writer, or three adding from three threads at once.
  const int writers = GENERATE(1, 3);
  INFO((symmetric ? "symmetric" : "one order")
       << ", " << bytes << " bytes, " << writers << " writers");
  const uint64_t product = DenseRegion::MaxProductForBytes(vocab, bytes, symmetric, writers);
  DenseRegion region(vocab, product, symmetric, writers);
  CHECK(region.memory_bytes() <= bytes);
  CHECK(region.memory_bytes() > bytes * 9 / 10);
  CHECK(region.Contains(0, vocab - 1));
  CHECK(region.Contains(vocab - 1, 0));
  CHECK_FALSE(region.Contains(vocab - 1, vocab - 1));
  if (symmetric) {
    CHECK(product > DenseRegion::MaxProductForBytes(vocab, bytes, false, writers) * 3 / 2);
  }
  std::vector<std::map<uint64_t, uint64_t>> expected_by(writers);
  std::vector<uint64_t> outside(writers, 0);  // adds Contains() let in beyond the product
  std::vector<std::thread> threads;
  for (int w = 0; w < writers; ++w) {
    threads.emplace_back([&, w] {
      DenseRegion::Writer writer(&region);
      std::map<uint64_t, uint64_t>& expected = expected_by[w];
      std::mt19937_64 rng(4 + w);
      for (int i = 0; i < 100000 / writers; ++i) {
        const uint32_t row = static_cast<uint32_t>(rng() % vocab),
                       col = static_cast<uint32_t>(rng() % (i % 10 == 0 ? 20 : vocab));
        if (!writer.Contains(row, col)) continue;
        outside[w] += (uint64_t{row} + 1) * (col + 1) > product;
        // Now and then a value too large to defer.
        const uint64_t value = i % 997 == 0 ? (uint64_t{1} << 33) + i : 1 + rng() % 5;
        if (symmetric || i % 2 == 0) {
          writer.AddBoth(row, col, value);
          expected[PairKey(col, row)] += value;
        } else {
          writer.Add(row, col, value);
        }
        expected[PairKey(row, col)] += value;
      }
      writer.Flush();
    });
  }
  for (std::thread& t : threads) t.join();
  std::map<uint64_t, uint64_t> expected;
  for (int w = 0; w < writers; ++w) {
    CHECK(outside[w] == 0);
    for (const auto& [key, value] : expected_by[w]) expected[key] += value;
  }
  // Drained whole, and in ranges that start and end inside rows.
  const std::vector<uint64_t> cuts{
      0,         PairKey(0, 7), PairKey(3, 0), PairKey(40, 2), PairKey(41, 499), PairKey(300, 1),
      UINT64_MAX};
  for (bool whole : {true, false}) {
    std::map<uint64_t, uint64_t> got;
    uint64_t previous = 0;
    for (size_t i = 0; i + 1 < cuts.size(); ++i) {
      auto stream = whole ? region.NewDrainStream() : region.NewDrainStream(cuts[i], cuts[i + 1]);
      for (;;) {
        // Reads of 1 to 5 records, so reads end anywhere in a row.
        PairRecord batch[5];
        size_t n = 0;
        REQUIRE(stream->Read(batch, 1 + got.size() % 5, &n).ok());
        if (n == 0) break;
        for (const PairRecord& r : std::span(batch, n)) {
          CHECK((got.empty() || r.key > previous));
          if (!whole) CHECK((r.key >= cuts[i] && r.key < cuts[i + 1]));
          previous = r.key;
          got[r.key] = r.value;
        }
      }
      if (whole) break;
    }
    CHECK(got == expected);
  }
  // Key samples: each counts the non-zero keys of its row from its column
  // to the next stretch of 7.
  std::vector<std::pair<uint64_t, uint64_t>> samples;
  region.AppendKeySamples(7, &samples);
  std::sort(samples.begin(), samples.end());
  std::map<uint64_t, uint64_t> stretches;
  for (const auto& [key, value] : expected) {
    stretches[PairKey(PairRow(key), PairCol(key) / 7 * 7)] += 1;
  }
  CHECK(samples == std::vector<std::pair<uint64_t, uint64_t>>(stretches.begin(), stretches.end()));
  region.Zero(0, region.cells());
  PairRecord r;
  size_t n = 1;
  REQUIRE(region.NewDrainStream()->Read(&r, 1, &n).ok());
  CHECK(n == 0);
}

TEST_CASE("A pair buffer spills a run only when combining frees too little", "[cooccur]") {
  TestDir dir("sg-spill-");
  BatchRuns runs(dir.path());
  // 4096 records; no dense region.
  PairAccumulator pairs(PairAccumulator::Layout{/*vocab_size=*/1000, /*head_words=*/1000,
                                                /*dense=*/nullptr, 4096, /*tail_records=*/0},
                        &runs);
  std::map<uint64_t, uint64_t> expected;
  auto add = [&](uint32_t key) {
    pairs.Add(key / 1000, key % 1000, 3);
    expected[PairKey(key / 1000, key % 1000)] += 3;
  };
  // 20000 increments of 1000 keys: each combine frees most of the buffer.
  for (uint32_t i = 0; i < 20000; ++i) add(i * 7 % 1000);
  CHECK(pairs.spilled_runs() == 0);
  // Then distinct keys: a full buffer whose combined records fill more than
  // three quarters spills them all.
  for (uint32_t key = 1000; key < 10000; ++key) add(key);
  CHECK(pairs.spilled_runs() == 2);
  std::vector<PairRun> spilled = runs.Take();
  REQUIRE(spilled.size() == 2);
  for (const PairRun& run : spilled) {
    CHECK(run.records > 4096 * 3 / 4);
    CHECK(run.records <= 4096);
  }
  pairs.FinishBatch();
  std::vector<std::unique_ptr<PairStream>> streams;
  for (const PairRun& run : spilled) streams.push_back(NewPairRunReader(run));
  streams.push_back(NewPairSpanStream(pairs.sorted_records()));
  CHECK(test::MergedPairs(std::move(streams)) == expected);
}

TEST_CASE("A tail word's pairs go to the tail buffer, spilled whenever it fills", "[cooccur]") {
  TestDir dir("sg-tail-");
  BatchRuns runs(dir.path());
  // Ids below 100 are the head, with a dense region over them; 2000 records
  // of head buffer, 512 of tail.
  const uint64_t max_product = 400;
  DenseRegion dense(/*vocab_size=*/100, max_product, /*symmetric=*/false, /*writers=*/1);
  PairAccumulator pairs(
      PairAccumulator::Layout{/*vocab_size=*/5000, /*head_words=*/100, &dense, 2000, 512}, &runs);
  std::map<uint64_t, uint64_t> expected;
  auto add = [&](uint32_t row, uint32_t col) {
    pairs.Add(row, col, 1);
    expected[PairKey(row, col)] += 1;
  };
  // Head pairs that combine: 30 rounds over 900 keys (some dense, some not)
  // never spill the head's buffer.
  for (int round = 0; round < 30; ++round) {
    for (uint32_t i = 0; i < 900; ++i) add(i % 100, i / 9 % 100);
  }
  CHECK(pairs.spilled_runs() == 0);
  // Tail pairs, one word of each pair at or above 100, repeated: each fill
  // of the tail buffer spills, though the repeats would have combined.
  for (int round = 0; round < 4; ++round) {
    for (uint32_t i = 0; i < 512; ++i) add(i % 2 == 0 ? 100 + i : 7, 100 + i);
  }
  CHECK(pairs.spilled_runs() == 3);
  std::vector<PairRun> spilled = runs.Take();
  REQUIRE(spilled.size() == 3);
  for (const PairRun& run : spilled) CHECK(run.records == 512);
  pairs.FinishBatch();
  CHECK(pairs.sorted_tail_records().size() == 512);
  // The head's buffer holds only head pairs outside the dense region.
  for (const PairRecord& r : pairs.sorted_records()) {
    CHECK(PairRow(r.key) < 100);
    CHECK(PairCol(r.key) < 100);
    CHECK((PairRow(r.key) + 1) * (PairCol(r.key) + 1) > max_product);
  }
  std::vector<std::unique_ptr<PairStream>> streams;
  for (const PairRun& run : spilled) streams.push_back(NewPairRunReader(run));
  streams.push_back(NewPairSpanStream(pairs.sorted_records()));
  streams.push_back(NewPairSpanStream(pairs.sorted_tail_records()));
  streams.push_back(dense.NewDrainStream());
  CHECK(test::MergedPairs(std::move(streams)) == expected);
}
