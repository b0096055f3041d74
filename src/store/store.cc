// StoreImpl: metadata reads and writes, pair scans, size on disk.
#include <unistd.h>

#include <fmt/format.h>
#include <rocksdb/write_batch.h>

#include "store/pair_block.h"
#include "store/rocks_message.h"
#include "store/store_impl.h"
#include "store/store_records.h"
#include "util/file.h"

namespace streamglove {

namespace {

std::string_view View(const rocksdb::Slice& s) { return {s.data(), s.size()}; }

}  // namespace

StoreImpl::StoreImpl(std::string dir, std::unique_ptr<FileLock> lock)
    : dir_(std::move(dir)), lock_(std::move(lock)) {}

StoreImpl::~StoreImpl() {
  if (db_ != nullptr) {
    db_->Close().PermitUncheckedError();
    db_.reset();
  }
  // lock_ is released after this body: only with RocksDB closed may another
  // process open the store.
}

Status StoreImpl::FromRocks(const rocksdb::Status& s, std::string_view what) const {
  std::string msg = fmt::format("{}: {}: {}", dir_, what, RocksMessage(s));
  if (s.IsNotFound()) return Status::NotFound(std::move(msg));
  if (s.IsCorruption()) return Status::Corruption(std::move(msg));
  if (s.IsInvalidArgument() || s.IsNotSupported()) return Status::InvalidArgument(std::move(msg));
  if (s.IsBusy() || s.IsTryAgain()) return Status::Busy(std::move(msg));
  return Status::IOError(std::move(msg));  // IOError (incl. NoSpace), Aborted, Incomplete, ...
}

Status StoreImpl::RequireInitialized() const {
  if (initialized_) return Status::OK();
  return Status::InvalidArgument(fmt::format("{}: store is not initialized", dir_));
}

Status StoreImpl::Initialize(const StoreConfig& config, std::vector<VocabEntry> vocab) {
  if (initialized_) {
    return Status::InvalidArgument(fmt::format("{}: store is already initialized", dir_));
  }
  if (vocab.size() > UINT32_MAX) {
    return Status::InvalidArgument(
        fmt::format("{}: {} vocabulary words exceed 2^32", dir_, vocab.size()));
  }
  for (size_t i = 0; i < vocab.size(); ++i) {
    if (vocab[i].word.empty()) {
      return Status::InvalidArgument(fmt::format("{}: vocabulary word {} is empty", dir_, i));
    }
  }
  // Version 1's record has no flags for the totals (tests make such stores).
  StoreConfig stored = config;
  stored.keeps_totals = config.keeps_totals && config.format_version >= 2;
  const auto records = [&](const RecordPut& put) {
    // Key order: "M/addition" < "M/config" < "V" + id (big-endian) <
    // "W/totals".
    SG_RETURN_IF_ERROR(put(kAdditionKey, EncodeAddition(0, vocab.size())));
    std::string value;
    EncodeConfig(stored, &value);
    SG_RETURN_IF_ERROR(put(kConfigKey, value));
    for (size_t i = 0; i < vocab.size(); ++i) {
      value.clear();
      EncodeVocabValue(vocab[i], &value);
      SG_RETURN_IF_ERROR(put(VocabKey(static_cast<uint32_t>(i)), value));
    }
    return stored.keeps_totals ? put(kTotalsKey, EncodeTotals(PairTotals())) : Status::OK();
  };
  SG_RETURN_IF_ERROR(IngestRecords(records, "writing config and vocabulary"));
  config_ = stored;
  last_added_words_ = vocab.size();
  vocab_ = std::move(vocab);
  initialized_ = true;
  return Status::OK();
}

Status StoreImpl::AddWords(const std::vector<std::string>& words) {
  SG_RETURN_IF_ERROR(RequireInitialized());
  if (config_.fixed_vocabulary) {
    return Status::InvalidArgument(fmt::format("{}: the store's vocabulary is fixed", dir_));
  }
  if (vocab_.size() + words.size() > UINT32_MAX) {
    return Status::InvalidArgument(
        fmt::format("{}: {} vocabulary words exceed 2^32 - 1", dir_, vocab_.size() + words.size()));
  }
  if (words.empty()) return Status::OK();
  for (const std::string& w : words) {
    if (w.empty()) return Status::InvalidArgument(fmt::format("{}: an empty word", dir_));
  }
  const auto records = [&](const RecordPut& put) {
    SG_RETURN_IF_ERROR(put(kAdditionKey, EncodeAddition(vocab_.size(), words.size())));
    std::string value;
    for (size_t i = 0; i < words.size(); ++i) {
      value.clear();
      EncodeVocabValue(VocabEntry{words[i], 0}, &value);
      SG_RETURN_IF_ERROR(put(VocabKey(static_cast<uint32_t>(vocab_.size() + i)), value));
    }
    return Status::OK();
  };
  SG_RETURN_IF_ERROR(IngestRecords(records, "adding words to the vocabulary"));
  for (const std::string& w : words) vocab_.push_back(VocabEntry{w, 0});
  last_added_words_ = words.size();
  ++vocab_changes_;
  return Status::OK();
}

Status StoreImpl::SetWordsHeld(const std::vector<std::string>& keys) {
  SG_RETURN_IF_ERROR(RequireInitialized());
  if (config_.fixed_vocabulary) {
    return Status::InvalidArgument(fmt::format("{}: the store's vocabulary is fixed", dir_));
  }
  const auto records = [&](const RecordPut& put) {
    return put(kWordsHeldKey, EncodeWordsHeld(keys));
  };
  return IngestRecords(records, "recording the inputs whose words the vocabulary holds");
}

Status StoreImpl::GetRecord(const std::string& key, std::string* value, bool* found) {
  *found = false;
  const rocksdb::Status s = db_->Get(StoreReadOptions(), key, value);
  if (s.IsNotFound()) return Status::OK();
  if (!s.ok()) return FromRocks(s, fmt::format("reading {}", key));
  *found = true;
  return Status::OK();
}

Status StoreImpl::GetWordsHeld(std::vector<std::string>* keys, bool* recorded) {
  keys->clear();
  std::string value;
  SG_RETURN_IF_ERROR(GetRecord(kWordsHeldKey, &value, recorded));
  if (*recorded && !DecodeWordsHeld(value, keys)) {
    return Status::Corruption(fmt::format("{}: {}: malformed record", dir_, kWordsHeldKey));
  }
  return Status::OK();
}

Status StoreImpl::ListInputs(std::vector<InputRecord>* inputs) {
  inputs->clear();
  const std::string first(kInputKeyPrefix);
  std::string end = first;
  end.back() += 1;  // "M/input0": just past every "M/input/..." key
  const rocksdb::Slice upper(end);
  rocksdb::ReadOptions ro = StoreReadOptions();
  ro.iterate_upper_bound = &upper;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro));
  for (it->Seek(first); it->Valid(); it->Next()) {
    const std::string_view fingerprint = View(it->key()).substr(first.size());
    InputRecord record;
    if (!DecodeInputRecord(fingerprint, View(it->value()), &record)) {
      return Status::Corruption(
          fmt::format("{}: {}{}: malformed input record", dir_, kInputKeyPrefix, fingerprint));
    }
    inputs->push_back(std::move(record));
  }
  if (!it->status().ok()) return FromRocks(it->status(), "listing inputs");
  return Status::OK();
}

Status StoreImpl::FindInput(const std::string& fingerprint, InputRecord* record, bool* found) {
  std::string value;
  SG_RETURN_IF_ERROR(GetRecord(InputKey(fingerprint), &value, found));
  if (*found && !DecodeInputRecord(fingerprint, value, record)) {
    return Status::Corruption(
        fmt::format("{}: {}{}: malformed input record", dir_, kInputKeyPrefix, fingerprint));
  }
  return Status::OK();
}

Status StoreImpl::GetProgress(IngestProgress* progress, bool* found) {
  std::string value;
  SG_RETURN_IF_ERROR(GetRecord(kProgressKey, &value, found));
  if (*found && !DecodeProgress(value, progress)) {
    return Status::Corruption(fmt::format("{}: {}: malformed progress record", dir_, kProgressKey));
  }
  return Status::OK();
}

Status StoreImpl::VisitPairBlock(const rocksdb::Iterator& it, const PairVisitor& f, uint32_t* row,
                                 uint32_t* block, std::vector<ColumnValue>* entries) const {
  if (!DecodePairBlockKey(View(it.key()), row, block)) {
    return Status::Corruption(
        fmt::format("{}: malformed pair-block key of {} bytes", dir_, it.key().size()));
  }
  if (!DecodeFragment(*row, *block, View(it.value()), entries)) {
    return Status::Corruption(
        fmt::format("{}: pair block row {} block {}: malformed fragment", dir_, *row, *block));
  }
  // DecodeFragment allows the widest block of either layout; the store's
  // own is exact, so a block that would overlap its neighbours is refused.
  const uint64_t columns = PairBlockColumns(config_.block_layout(), *row, *block);
  if (*block % (columns / kBlockColumns) != 0 ||
      (!entries->empty() && entries->back().col >= uint64_t{*block} * kBlockColumns + columns)) {
    return Status::Corruption(fmt::format(
        "{}: pair block row {} block {}: not a block of this store's {}-column layout there", dir_,
        *row, *block, columns));
  }
  if (*row >= vocab_.size() || (!entries->empty() && entries->back().col >= vocab_.size())) {
    return Status::Corruption(
        fmt::format("{}: pair block row {} block {}: pair outside the vocabulary of {} words", dir_,
                    *row, *block, vocab_.size()));
  }
  for (const ColumnValue& e : *entries) SG_RETURN_IF_ERROR(f(*row, e.col, e.value));
  return Status::OK();
}

Status StoreImpl::ForEachPairInRows(uint32_t row_begin, uint32_t row_end, const PairVisitor& f) {
  if (row_begin >= row_end) return Status::OK();
  const std::string first = EncodePairBlockKey(row_begin, 0);
  const std::string end =
      row_end == UINT32_MAX ? std::string(1, kPairKeyPrefix + 1) : EncodePairBlockKey(row_end, 0);
  const rocksdb::Slice upper(end);
  rocksdb::ReadOptions ro = StoreReadOptions();
  ro.iterate_upper_bound = &upper;
  ro.fill_cache = false;  // one pass over everything: keep the cache for metadata and indexes
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro));
  std::vector<ColumnValue> entries;
  uint32_t row = 0, block = 0;
  bool any = false;
  for (it->Seek(first); it->Valid(); it->Next()) {
    any = true;
    SG_RETURN_IF_ERROR(VisitPairBlock(*it, f, &row, &block, &entries));
  }
  if (!it->status().ok()) {
    // A failed merge (a malformed operand) ends the scan here.
    return FromRocks(it->status(),
                     any ? fmt::format("pair blocks after row {} block {}", row, block)
                         : std::string("pair blocks"));
  }
  return Status::OK();
}

Status StoreImpl::ForEachPairOfRows(const std::vector<uint32_t>& rows, const PairVisitor& f) {
  // Pair blocks end before the metadata keys; rows are read whole, so the
  // blocks a seek reads are cached for the neighbouring rows' seeks.
  const std::string end(1, kPairKeyPrefix + 1);
  const rocksdb::Slice upper(end);
  rocksdb::ReadOptions ro = StoreReadOptions();
  ro.iterate_upper_bound = &upper;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro));
  std::vector<ColumnValue> entries;
  for (const uint32_t want : rows) {
    uint32_t row = want, block = 0;
    for (it->Seek(EncodePairBlockKey(want, 0)); it->Valid(); it->Next()) {
      // The next row's first key ends this one (a malformed key is
      // VisitPairBlock's error).
      if (DecodePairBlockKey(View(it->key()), &row, &block) && row != want) break;
      SG_RETURN_IF_ERROR(VisitPairBlock(*it, f, &row, &block, &entries));
    }
    if (!it->status().ok())
      return FromRocks(it->status(), fmt::format("pair blocks of row {}", want));
  }
  return Status::OK();
}

Status StoreImpl::VerifyChecksums() {
  const rocksdb::Status s = db_->VerifyChecksum();
  return s.ok() ? Status::OK() : FromRocks(s, "checksums");
}

uint64_t StoreImpl::SizeOnDisk() { return MeasureDirectory(dir_).top_level; }

}  // namespace streamglove
