// Run slices, the distributed ingest's exchange: cutting a run's key space
// among owners, each owner's slice read with its key range gives exactly
// the run's records in that range; slices survive their encoding; a
// malformed encoding is refused.
#include "cooccur/distributed/run_slices.h"

#include <filesystem>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "test_util.h"

using namespace streamglove;
using namespace streamglove::test;

namespace {

// The records of `slice` in [begin, end), read as an owner reads them.
std::vector<PairRecord> ReadSlice(const PairRun& slice, uint64_t begin, uint64_t end) {
  std::vector<PairRecord> out;
  std::unique_ptr<PairStream> stream = NewPairRunReader(slice, begin, end);
  // Reads of one record and of many, so that reads end anywhere in the
  // reader's buffer.
  for (size_t max = 1;; max = max == 1 ? 1000 : 1) {
    std::vector<PairRecord> batch(max);
    size_t n = 0;
    REQUIRE(stream->Read(batch.data(), max, &n).ok());
    if (n == 0) break;
    out.insert(out.end(), batch.begin(), batch.begin() + static_cast<ptrdiff_t>(n));
  }
  return out;
}

}  // namespace

TEST_CASE("Each owner's slice of a run reads back exactly the run's records in its rows",
          "[cooccur]") {
  TestDir dir("sg-slices-");
  // 50,000 sorted records over 2,000 rows: a dozen groups of 4,096.
  std::mt19937_64 rng(12);
  std::vector<PairRecord> records;
  uint64_t key = 0;
  for (int i = 0; i < 50000; ++i) {
    key += 1 + rng() % (uint64_t{1} << 33);
    records.push_back({key, 1 + rng() % 100});
  }
  PairRun run;
  REQUIRE(WritePairRun(dir.path() + "/run", records, &run).ok());
  REQUIRE(run.groups.size() > 10);
  const uint64_t file_bytes = std::filesystem::file_size(run.path);
  for (int owners : {1, 3, 7, 40}) {
    INFO(owners << " owners");
    // Row starts as the exchange cuts them: owner k takes [starts[k], starts[k + 1]).
    std::vector<uint64_t> starts = {0};
    for (int k = 1; k < owners; ++k)
      starts.push_back(PairKey(static_cast<uint32_t>(k * (2000 / owners) * 500), 0));
    std::vector<PairRecord> all;
    std::vector<PairRun> slices;
    uint64_t slice_bytes = 0;
    for (int k = 0; k < owners; ++k) {
      const uint64_t begin = starts[k], end = k + 1 < owners ? starts[k + 1] : UINT64_MAX;
      const PairRun slice = RunSlice(run, begin, end);
      if (slice.groups.empty()) continue;
      slice_bytes += SliceBytes(run, slice);
      for (const PairRecord& r : ReadSlice(slice, begin, end)) {
        CHECK(r.key >= begin);
        CHECK(r.key < end);
        all.push_back(r);
      }
      slices.push_back(slice);
    }
    REQUIRE(all.size() == records.size());
    for (size_t i = 0; i < all.size(); ++i) {
      REQUIRE(all[i].key == records[i].key);
      REQUIRE(all[i].value == records[i].value);
    }
    // Slices share at most the group at each cut: their bytes cover the file
    // with at most one group's bytes more per cut.
    CHECK(slice_bytes >= file_bytes);
    CHECK(slice_bytes <=
          file_bytes + static_cast<uint64_t>(owners - 1) * (file_bytes / run.groups.size() + 64));

    std::string text;
    EncodeSlices(slices, &text);
    std::vector<PairRun> decoded;
    REQUIRE(DecodeSlices(text, &decoded).ok());
    REQUIRE(decoded.size() == slices.size());
    for (size_t i = 0; i < slices.size(); ++i) {
      CHECK(decoded[i].path == slices[i].path);
      CHECK(decoded[i].records == slices[i].records);
      REQUIRE(decoded[i].groups.size() == slices[i].groups.size());
      for (size_t g = 0; g < slices[i].groups.size(); ++g) {
        CHECK(decoded[i].groups[g].key == slices[i].groups[g].key);
        CHECK(decoded[i].groups[g].offset == slices[i].groups[g].offset);
      }
    }
    if (!text.empty()) {
      std::vector<PairRun> bad;
      CHECK(DecodeSlices(text.substr(0, text.size() - 1), &bad).code() ==
            Status::Code::kCorruption);
      CHECK(DecodeSlices(text + "x", &bad).code() == Status::Code::kCorruption);
    }
  }
  // A range the run does not reach has no slice.
  CHECK(RunSlice(run, records.back().key + 1, UINT64_MAX).groups.size() <= 1);
  CHECK(RunSlice(run, 0, 0).groups.empty());
}
