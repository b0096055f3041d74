#include "cooccur/batch_merge.h"

#include <algorithm>

#include <fmt/format.h>
#include <tbb/parallel_for.h>

#include "store/pair_block.h"

namespace streamglove {

namespace {

// Records (or dense cells) one key sample stands for.
constexpr uint64_t kSampleRecords = kPairRunGroupRecords;
// Dense cells one thread zeroes at a time (8 MiB).
constexpr uint64_t kCellsPerTask = uint64_t{1} << 20;

// The first column of the block that holds `key` in the wide layout, whose
// blocks are each a whole number of narrow ones: a range that starts there
// splits no block in either layout.
uint64_t BlockStart(uint64_t key) {
  const uint32_t row = PairRow(key);
  return PairKey(row, PairBlockOf(PairBlockLayout::kWide, row, PairCol(key)) * kBlockColumns);
}

}  // namespace

std::vector<uint64_t> SplitKeySpace(const BatchCounts& counts, size_t max_ranges,
                                    uint64_t min_records) {
  std::vector<std::pair<uint64_t, uint64_t>> samples;  // (key, records from it to the next sample)
  if (counts.dense != nullptr) counts.dense->AppendKeySamples(kSampleRecords, &samples);
  for (std::span<const PairRecord> records : counts.sorted) {
    for (size_t i = 0; i < records.size(); i += kSampleRecords) {
      samples.emplace_back(records[i].key, std::min<uint64_t>(kSampleRecords, records.size() - i));
    }
  }
  for (const PairRun& run : counts.runs) {
    for (size_t g = 0; g < run.groups.size(); ++g) {
      samples.emplace_back(run.groups[g].key,
                           std::min(kSampleRecords, run.records - g * kSampleRecords));
    }
  }
  std::sort(samples.begin(), samples.end());
  uint64_t total = 0;
  for (const auto& s : samples) total += s.second;
  const uint64_t per_range =
      std::max<uint64_t>({total / std::max<size_t>(max_ranges, 1), min_records, 1});

  std::vector<uint64_t> starts{0};
  uint64_t seen = 0;
  for (const auto& [key, records] : samples) {
    // A range starts at the block of the sample that passes its share.
    if (seen >= starts.size() * per_range && starts.size() < max_ranges &&
        total - seen >= per_range / 2) {
      const uint64_t start = BlockStart(key);
      if (start > starts.back()) starts.push_back(start);
    }
    seen += records;
  }
  return starts;
}

Status MergeBatch(BatchCounts* counts, const std::vector<uint64_t>& starts, Store::Batch* batch) {
  if (batch->ranges() != starts.size()) {
    return Status::InvalidArgument(
        fmt::format("a batch of {} ranges for {} key ranges", batch->ranges(), starts.size()));
  }
  // A symmetric region's cell is read by the ranges of both its keys: the
  // region is zeroed once every range has read it.
  DenseRegion* dense = counts->dense;
  std::vector<Status> status(starts.size());
  tbb::parallel_for(
      tbb::blocked_range<size_t>(0, starts.size(), 1),
      [&](const tbb::blocked_range<size_t>& ranges) {
        for (size_t i = ranges.begin(); i < ranges.end(); ++i) {
          const uint64_t begin = starts[i];
          const uint64_t end = i + 1 < starts.size() ? starts[i + 1] : UINT64_MAX;
          std::vector<std::unique_ptr<PairStream>> streams;
          if (dense != nullptr) streams.push_back(dense->NewDrainStream(begin, end));
          for (std::span<const PairRecord> records : counts->sorted) {
            const auto by_key = [](const PairRecord& r, uint64_t key) { return r.key < key; };
            const auto first = std::lower_bound(records.begin(), records.end(), begin, by_key);
            const auto last = std::lower_bound(first, records.end(), end, by_key);
            if (first != last) streams.push_back(NewPairSpanStream({first, last}));
          }
          for (const PairRun& run : counts->runs)
            streams.push_back(NewPairRunReader(run, begin, end));
          status[i] = MergePairStreams(std::move(streams), [&](const PairRecord& r) {
            return batch->Add(i, PairRow(r.key), PairCol(r.key), r.value);
          });
          if (status[i].ok()) status[i] = batch->FinishRange(i);
        }
      },
      tbb::simple_partitioner());
  if (dense != nullptr) {
    tbb::parallel_for(tbb::blocked_range<uint64_t>(0, dense->cells(), kCellsPerTask),
                      [&](const tbb::blocked_range<uint64_t>& cells) {
                        dense->Zero(cells.begin(), cells.end());
                      });
  }
  for (const Status& s : status) SG_RETURN_IF_ERROR(s);
  return Status::OK();
}

}  // namespace streamglove
