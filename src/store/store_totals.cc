// StoreImpl: the record of the store's PairTotals ("W/totals"): read,
// carried forward by every commit, counted once for a store of a build
// before it.
#include <set>

#include <fmt/format.h>

#include "store/pair_totals.h"
#include "store/store_impl.h"
#include "store/store_records.h"

namespace streamglove {

Status StoreImpl::StateDigest(const BatchMetadata* after, uint64_t* digest) {
  std::vector<InputRecord> inputs;
  SG_RETURN_IF_ERROR(ListInputs(&inputs));
  std::set<std::string> fingerprints;
  for (const InputRecord& r : inputs) fingerprints.insert(r.fingerprint);
  std::string progress;
  __uint128_t occurrences = 0;
  for (const VocabEntry& e : vocab_) occurrences += e.count;
  if (after == nullptr) {
    bool found = false;
    SG_RETURN_IF_ERROR(GetRecord(kProgressKey, &progress, &found));
    if (!found) progress.clear();
  } else {
    // As WriteMetadataRecords changes the records.
    for (const std::string& f : after->replaced) fingerprints.erase(f);
    for (const InputRecord& r : after->finished) fingerprints.insert(r.fingerprint);
    if (after->progress != nullptr) EncodeProgress(*after->progress, &progress);
    // A fixed vocabulary keeps its counts (BatchMetadata).
    if (!config_.fixed_vocabulary) {
      for (const uint64_t c : after->word_counts) occurrences += c;
    }
  }
  *digest = IngestStateDigest({fingerprints.begin(), fingerprints.end()}, progress, occurrences);
  return Status::OK();
}

Status StoreImpl::GetPairTotals(PairTotals* totals, bool* known) {
  *totals = PairTotals();
  *known = false;
  std::string value;
  bool found = false;
  SG_RETURN_IF_ERROR(GetRecord(kTotalsKey, &value, &found));
  if (!found) return Status::OK();
  uint64_t recorded = 0, now = 0;
  if (!DecodeTotals(value, totals, &recorded)) {
    *totals = PairTotals();
    return Status::Corruption(fmt::format("{}: {}: malformed record", dir_, kTotalsKey));
  }
  SG_RETURN_IF_ERROR(StateDigest(nullptr, &now));
  *known = recorded == now;
  if (!*known) *totals = PairTotals();
  return Status::OK();
}

Status StoreImpl::TotalsAfterBatch(const std::vector<BatchFileTotals>& files, PairTotals* totals,
                                   bool* known) {
  SG_RETURN_IF_ERROR(GetPairTotals(totals, known));
  if (!*known) return Status::OK();
  const bool store_has_pairs = totals->pairs > 0;
  std::unique_ptr<rocksdb::Iterator> it;
  if (store_has_pairs) it.reset(db_->NewIterator(StoreReadOptions()));
  for (const BatchFileTotals& f : files) {
    if (f.pairs == 0) continue;
    totals->pairs += f.pairs;
    totals->units += f.units;
    if (!store_has_pairs || !totals->pairs_exact) continue;
    // One seek per file: does the store hold a block in its key range?
    it->Seek(f.first_key);
    if (!it->status().ok()) return FromRocks(it->status(), "reading the store's pairs");
    if (it->Valid() && it->key().compare(f.last_key) <= 0) totals->pairs_exact = false;
  }
  return Status::OK();
}

Status StoreImpl::CountTotalsIfUnknown() {
  if (!initialized_) return Status::OK();
  PairTotals totals;
  bool known = false;
  SG_RETURN_IF_ERROR(GetPairTotals(&totals, &known));
  if (known) return Status::OK();
  SG_RETURN_IF_ERROR(ForEachPair([&](uint32_t, uint32_t, uint64_t value) {
    ++totals.pairs;
    totals.units += value;
    return Status::OK();
  }));
  uint64_t digest = 0;
  SG_RETURN_IF_ERROR(StateDigest(nullptr, &digest));
  return IngestRecords(
      [&](const RecordPut& put) { return put(kTotalsKey, EncodeTotals(totals, digest)); },
      "recording the store's totals");
}

}  // namespace streamglove
