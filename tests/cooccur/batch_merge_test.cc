#include "cooccur/batch_merge.h"

#include <map>
#include <random>
#include <set>

#include <catch2/catch.hpp>

#include "store/pair_block.h"
#include "test_util.h"
#include "util/file.h"

using namespace streamglove;
using streamglove::test::TestDir;

namespace {

// A Store::Batch that keeps each range's pairs and checks the order within it.
class RecordingBatch final : public Store::Batch {
 public:
  explicit RecordingBatch(size_t ranges) : ranges_(ranges) {}
  size_t ranges() const override { return ranges_.size(); }
  Status Add(size_t range, uint32_t row, uint32_t col, uint64_t value) override {
    auto& pairs = ranges_.at(range);
    if (!pairs.empty() && pairs.rbegin()->first >= PairKey(row, col))
      return Status::InvalidArgument("not increasing");
    if (finished_.count(range)) return Status::InvalidArgument("range finished");
    pairs[PairKey(row, col)] = value;
    return Status::OK();
  }
  Status FinishRange(size_t range) override {
    finished_.insert(range);
    return Status::OK();
  }
  Status WriteMetadata(const BatchMetadata&) override {
    return Status::InvalidArgument("MergeBatch writes no metadata");
  }
  std::set<size_t> finished_;
  std::vector<std::map<uint64_t, uint64_t>> ranges_;
};

}  // namespace

TEST_CASE("MergeBatch sums a dense region, buffers and runs like std::map, range by range",
          "[cooccur]") {
  TestDir dir("sg-merge-");
  const uint32_t vocab = 3 * kBlockColumns + 11;
  const size_t max_ranges = GENERATE(1, 2, 7, 64);
  // Pairs in both orders, the dense region keeping each pair once, or in
  // one order.
  const bool symmetric = GENERATE(false, true);
  INFO(max_ranges << " ranges, " << (symmetric ? "symmetric" : "one order"));
  std::mt19937_64 rng(max_ranges);
  std::map<uint64_t, uint64_t> expected;
  // Zipf-like ids, so the dense region and the low rows get most pairs.
  auto id = [&] {
    return static_cast<uint32_t>(
        std::min<uint64_t>(vocab - 1, (rng() % vocab) * (rng() % vocab) / vocab));
  };

  // Three workers' writers add to one region.
  const uint64_t max_product =
      DenseRegion::MaxProductForBytes(vocab, size_t{1} << 20, symmetric, /*writers=*/3);
  DenseRegion region(vocab, max_product, symmetric, /*writers=*/3);
  std::vector<std::unique_ptr<DenseRegion::Writer>> writers;
  for (int w = 0; w < 3; ++w) writers.push_back(std::make_unique<DenseRegion::Writer>(&region));
  BatchCounts counts;
  counts.dense = &region;
  std::vector<std::vector<PairRecord>> buffers(4);
  BatchRuns names(dir.path());
  for (int source = 0; source < 10; ++source) {
    std::map<uint64_t, uint64_t> one;
    for (int i = 0; i < 20000; ++i) {
      const uint32_t row = id(), col = id();
      const uint64_t value = 1 + rng() % 1000;
      expected[PairKey(row, col)] += value;
      if (symmetric) expected[PairKey(col, row)] += value;
      if (source < 3 && region.Contains(row, col)) {
        if (symmetric) {
          writers[source]->AddBoth(row, col, value);
        } else {
          writers[source]->Add(row, col, value);
        }
      } else {
        one[PairKey(row, col)] += value;
        if (symmetric) one[PairKey(col, row)] += value;
      }
    }
    std::vector<PairRecord> records;
    for (const auto& [k, v] : one) records.push_back({k, v});
    if (source < 4) {
      buffers[source] = std::move(records);
    } else {
      counts.runs.emplace_back();
      REQUIRE(WritePairRun(names.NewPath(), records, &counts.runs.back()).ok());
    }
  }
  for (const auto& b : buffers) counts.sorted.push_back(b);
  for (const auto& writer : writers) writer->Flush();

  const std::vector<uint64_t> starts = SplitKeySpace(counts, max_ranges, /*min_records=*/1000);
  REQUIRE(!starts.empty());
  CHECK(starts.front() == 0);
  CHECK(starts.size() <= max_ranges);
  if (max_ranges > 1) CHECK(starts.size() > 1);
  for (size_t i = 1; i < starts.size(); ++i) {
    CHECK(starts[i] > starts[i - 1]);
    CHECK(PairCol(starts[i]) % kBlockColumns == 0);
  }

  RecordingBatch batch(starts.size());
  REQUIRE(MergeBatch(&counts, starts, &batch).ok());
  std::map<uint64_t, uint64_t> got;
  size_t largest = 0;
  for (size_t i = 0; i < starts.size(); ++i) {
    for (const auto& [k, v] : batch.ranges_[i]) {
      CHECK(k >= starts[i]);
      if (i + 1 < starts.size()) CHECK(k < starts[i + 1]);
      got[k] = v;
    }
    largest = std::max(largest, batch.ranges_[i].size());
  }
  CHECK(got == expected);
  CHECK(batch.finished_.size() == starts.size());
  // The ranges share the work: none holds much more than its share, where a
  // share is several samples (a sample stands for kPairRunGroupRecords).
  INFO(starts.size() << " ranges, the largest " << largest << " of " << expected.size()
                     << " records");
  if (expected.size() / starts.size() >= 8 * kPairRunGroupRecords) {
    CHECK(largest < 2 * expected.size() / starts.size());
  }
  // The dense region is left empty for the next batch.
  PairRecord r;
  size_t n = 1;
  REQUIRE(region.NewDrainStream()->Read(&r, 1, &n).ok());
  CHECK(n == 0);
}

TEST_CASE("MergeBatch refuses a batch whose ranges do not match", "[cooccur]") {
  BatchCounts counts;
  RecordingBatch batch(2);
  CHECK(MergeBatch(&counts, {0}, &batch).code() == Status::Code::kInvalidArgument);
}

TEST_CASE("SplitKeySpace starts ranges where a block starts in either layout", "[cooccur]") {
  // Rows on both sides of kWideBlockFromId, columns up to three wide blocks.
  std::mt19937_64 rng(17);
  std::map<uint64_t, uint64_t> records;
  while (records.size() < 200000) {
    const uint32_t row = kWideBlockFromId - 3 + static_cast<uint32_t>(rng() % 6);
    records[PairKey(row, static_cast<uint32_t>(rng() % (3 * kWideBlockColumns)))] = 1;
  }
  std::vector<PairRecord> sorted;
  for (const auto& [k, v] : records) sorted.push_back({k, v});
  BatchCounts counts;
  counts.sorted.push_back(sorted);
  const std::vector<uint64_t> starts = SplitKeySpace(counts, 64, /*min_records=*/100);
  CHECK(starts.size() > 20);
  for (uint64_t start : starts) {
    const uint32_t row = PairRow(start), col = PairCol(start);
    INFO("range start (" << row << ", " << col << ")");
    for (const PairBlockLayout layout : {PairBlockLayout::kNarrow, PairBlockLayout::kWide}) {
      CHECK(uint64_t{PairBlockOf(layout, row, col)} * kBlockColumns == col);
    }
  }
}
