// StoreImpl: the record of the store's PairTotals ("W/totals"): read,
// carried forward by every commit, counted once for a store of a build
// before it.
#include <algorithm>

#include <fmt/format.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "store/pair_totals.h"
#include "store/store_impl.h"
#include "store/store_records.h"
#include "util/threads.h"

namespace streamglove {

Status StoreImpl::GetPairTotals(PairTotals* totals, bool* known) {
  *totals = PairTotals();
  *known = false;
  if (!config_.keeps_totals) return Status::OK();
  std::string value;
  SG_RETURN_IF_ERROR(GetRecord(kTotalsKey, &value, known));
  if (*known && !DecodeTotals(value, totals)) {
    *totals = PairTotals();
    *known = false;
    return Status::Corruption(fmt::format("{}: {}: malformed record", dir_, kTotalsKey));
  }
  return Status::OK();
}

Status StoreImpl::TotalsAfterBatch(const std::vector<BatchFileTotals>& files, PairTotals* totals,
                                   bool* known) {
  SG_RETURN_IF_ERROR(GetPairTotals(totals, known));
  if (!*known) return Status::OK();
  // The files' key ranges, in order: the batch's pairs are all new when no
  // two files share a block and the store holds no block in any of them.
  const bool store_has_pairs = totals->pairs > 0;
  std::vector<const BatchFileTotals*> ranges;
  for (const BatchFileTotals& f : files) {
    if (f.pairs == 0) continue;
    totals->pairs += f.pairs;
    totals->units += f.units;
    ranges.push_back(&f);
  }
  std::sort(ranges.begin(), ranges.end(), [](const BatchFileTotals* a, const BatchFileTotals* b) {
    return a->first_key < b->first_key;
  });
  for (size_t i = 1; i < ranges.size(); ++i) {
    if (ranges[i]->first_key <= ranges[i - 1]->last_key) totals->pairs_exact = false;
  }
  if (!totals->pairs_exact || !store_has_pairs) return Status::OK();
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(StoreReadOptions()));
  for (const BatchFileTotals* f : ranges) {
    it->Seek(f->first_key);  // one seek a file
    if (!it->status().ok()) return FromRocks(it->status(), "reading the store's pairs");
    if (it->Valid() && it->key().compare(f->last_key) <= 0) {
      totals->pairs_exact = false;
      break;
    }
  }
  return Status::OK();
}

std::vector<uint32_t> StoreImpl::PairScanStarts(size_t ranges) {
  std::vector<rocksdb::LiveFileMetaData> files;
  db_->GetLiveFilesMetaData(&files);
  // Each file's first row and its bytes, at the deepest level holding pairs.
  std::vector<std::pair<uint32_t, uint64_t>> cuts;
  int deepest = -1;
  for (const rocksdb::LiveFileMetaData& f : files) {
    uint32_t row = 0, block = 0;
    if (!DecodePairBlockKey(f.smallestkey, &row, &block)) continue;
    if (f.level > deepest) cuts.clear();
    if (f.level >= deepest) {
      deepest = f.level;
      cuts.emplace_back(row, f.size);
    }
  }
  std::sort(cuts.begin(), cuts.end());
  uint64_t total = 0;
  for (const auto& c : cuts) total += c.second;
  std::vector<uint32_t> starts{0};
  uint64_t seen = 0;
  for (const auto& [row, bytes] : cuts) {
    if (starts.size() < ranges && seen >= starts.size() * (total / ranges) && row > starts.back())
      starts.push_back(row);
    seen += bytes;
  }
  return starts;
}

Status StoreImpl::CountPairs(int threads, PairTotals* totals) {
  *totals = PairTotals();
  // Several ranges a thread, so that one slow range does not hold the rest.
  const std::vector<uint32_t> starts = PairScanStarts(static_cast<size_t>(threads) * 4);
  std::vector<PairTotals> parts(starts.size());
  std::vector<Status> status(starts.size());
  tbb::task_arena arena(threads);
  arena.execute([&] {
    tbb::parallel_for(size_t{0}, starts.size(), [&](size_t i) {
      const uint32_t end = i + 1 < starts.size() ? starts[i + 1] : UINT32_MAX;
      status[i] = ForEachPairInRows(starts[i], end, [&](uint32_t, uint32_t, uint64_t value) {
        ++parts[i].pairs;
        parts[i].units += value;
        return Status::OK();
      });
    });
  });
  for (size_t i = 0; i < parts.size(); ++i) {
    SG_RETURN_IF_ERROR(status[i]);
    totals->pairs += parts[i].pairs;
    totals->units += parts[i].units;
  }
  return Status::OK();
}

Status StoreImpl::CountTotalsIfUnknown() {
  if (!initialized_) return Status::OK();
  PairTotals totals;
  bool known = false;
  // A record that does not decode is counted again, as a missing one: it
  // is derived from the pairs, which verify checks.
  if (GetPairTotals(&totals, &known).ok() && known) return Status::OK();
  SG_RETURN_IF_ERROR(CountPairs(AvailableCores(), &totals));
  // The record and the flag that keeps builds before it out, in one step.
  StoreConfig config = config_;
  config.keeps_totals = true;
  std::string value;
  EncodeConfig(config, &value);
  const auto records = [&](const RecordPut& put) {
    SG_RETURN_IF_ERROR(put(kConfigKey, value));  // "M/config" < "W/totals"
    return put(kTotalsKey, EncodeTotals(totals));
  };
  SG_RETURN_IF_ERROR(IngestRecords(records, "recording the store's totals"));
  config_ = config;
  return Status::OK();
}

}  // namespace streamglove
