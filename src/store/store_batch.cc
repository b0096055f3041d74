// Batches: pairs written to a temporary SST file, committed with their
// metadata changes by one IngestExternalFile.
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <filesystem>
#include <optional>
#include <thread>

#include <fmt/format.h>
#include <rocksdb/sst_file_writer.h>
#include <rocksdb/write_batch.h>

#include "store/manifest_length.h"
#include "store/pair_block.h"
#include "store/pair_totals.h"
#include "store/rocks_message.h"
#include "store/store_impl.h"
#include "store/store_records.h"
#include "store/store_tuning.h"
#include "streamglove/store_info.h"

namespace streamglove {

namespace {

// One SST file of a batch: the pairs of one key range, written as Merge
// entries of DIR/tmp/batch-<n>-<range>.sst and opened at the first pair, or
// the batch's metadata records (DIR/tmp/batch-<n>-meta.sst); removes the file
// on destruction (after a commit, RocksDB has moved it).
//
// Invariants: entries_ holds the columns of block (row_, block_) added since
// the last Merge entry; totals_ counts every pair added, and its keys are
// set when the file is finished; the first error is kept and returned ever
// after.
class BatchFile {
 public:
  BatchFile(std::string path, size_t vocab_size, PairBlockLayout layout)
      : path_(std::move(path)), vocab_size_(vocab_size), layout_(layout) {}
  // Not copied or moved: the writer's collector points at totals_.
  BatchFile(const BatchFile&) = delete;
  BatchFile& operator=(const BatchFile&) = delete;
  ~BatchFile() {
    if (writer_ == nullptr) return;
    writer_.reset();
    ::unlink(path_.c_str());
  }

  Status Add(const rocksdb::Options& options, rocksdb::ColumnFamilyHandle* cf, uint32_t row,
             uint32_t col, uint64_t value) {
    SG_RETURN_IF_ERROR(error_);
    if (finished_)
      return Status::InvalidArgument(fmt::format("{}: pair after the range was finished", path_));
    if (any_ && (row < row_ || (row == row_ && col <= col_))) {
      return Status::InvalidArgument(fmt::format("{}: pair ({}, {}) after ({}, {}): not increasing",
                                                 path_, row, col, row_, col_));
    }
    if (row >= vocab_size_ || col >= vocab_size_) {
      return Status::InvalidArgument(fmt::format(
          "{}: pair ({}, {}) outside the vocabulary of {} words", path_, row, col, vocab_size_));
    }
    if (value == 0) {
      return Status::InvalidArgument(fmt::format("{}: pair ({}, {}): value 0", path_, row, col));
    }
    if (writer_ == nullptr) {
      SG_RETURN_IF_ERROR(OpenForPairs(options, cf));
      first_row_ = row;
      first_block_ = PairBlockOf(layout_, row, col);
    }
    const uint32_t block = PairBlockOf(layout_, row, col);
    if (any_ && (row != row_ || block != block_)) SG_RETURN_IF_ERROR(FlushBlock());
    any_ = true;
    row_ = row;
    col_ = col;
    block_ = block;
    entries_.push_back(ColumnValue{col, value});
    ++totals_.pairs;
    totals_.units += value;
    return Status::OK();
  }

  // Writes the open block, if any.
  Status FlushBlock() {
    SG_RETURN_IF_ERROR(error_);
    if (entries_.empty()) return Status::OK();
    fragment_.clear();
    EncodeFragment(row_, block_, entries_, &fragment_);
    entries_.clear();
    ++blocks_;
    return Check(writer_->Merge(EncodePairBlockKey(row_, block_), fragment_));
  }

  // Opens the file for records (Put, Delete); Add() opens it for pairs.
  Status Open(const rocksdb::Options& options, rocksdb::ColumnFamilyHandle* cf) {
    writer_ = std::make_unique<rocksdb::SstFileWriter>(rocksdb::EnvOptions(), options, cf);
    return Check(writer_->Open(path_));
  }

  // REQUIRES: the file is open; keys after every key written.
  Status Put(const std::string& key, const std::string& value) {
    SG_RETURN_IF_ERROR(error_);
    return Check(writer_->Put(key, value));
  }
  Status Delete(const std::string& key) {
    SG_RETURN_IF_ERROR(error_);
    return Check(writer_->Delete(key));
  }
  // Flushes the open block and completes the file, if any pair was added;
  // once only.
  Status Finish() {
    SG_RETURN_IF_ERROR(FlushBlock());
    if (writer_ == nullptr || finished_) return Status::OK();
    finished_ = true;
    if (blocks_ > 0) {  // the table's properties, written by Finish, carry them
      totals_.first_key = EncodePairBlockKey(first_row_, first_block_);
      totals_.last_key = EncodePairBlockKey(row_, block_);
    }
    return Check(writer_->Finish());
  }

  // Keeps the file on destruction (another process commits it).
  void Release() { writer_.reset(); }

  const std::string& path() const { return path_; }
  uint64_t blocks() const { return blocks_; }
  // The first and last pair blocks written. REQUIRES: blocks() > 0.
  std::pair<uint32_t, uint32_t> first_block() const { return {first_row_, first_block_}; }
  std::pair<uint32_t, uint32_t> last_block() const { return {row_, block_}; }
  // REQUIRES: Finish().
  const BatchFileTotals& totals() const { return totals_; }

 private:
  // A pair file carries its totals in its table properties.
  Status OpenForPairs(rocksdb::Options options, rocksdb::ColumnFamilyHandle* cf) {
    options.table_properties_collector_factories = {NewBatchTotalsCollectorFactory(&totals_)};
    return Open(options, cf);
  }

  Status Check(const rocksdb::Status& s) {
    if (!s.ok() && error_.ok())
      error_ = Status::IOError(fmt::format("{}: {}", path_, RocksMessage(s)));
    return error_;
  }

  const std::string path_;
  const size_t vocab_size_;
  const PairBlockLayout layout_;
  BatchFileTotals totals_;                          // before writer_, whose collector reads it
  std::unique_ptr<rocksdb::SstFileWriter> writer_;  // null until the first pair
  bool finished_ = false;
  Status error_;

  bool any_ = false;  // a pair was added; (row_, col_) is the last one
  uint32_t row_ = 0, col_ = 0, block_ = 0;
  uint32_t first_row_ = 0, first_block_ = 0;
  std::vector<ColumnValue> entries_;
  std::string fragment_;
  uint64_t blocks_ = 0;  // Merge entries written
};

// Writes `metadata`'s records (StoreImpl::WriteMetadataRecords) as the SST
// file `file`, with the store's own options: its metadata is kept with the
// bottommost level's compression, as IngestRecords writes the vocabulary.
Status WriteMetadataFile(const StoreImpl& store, rocksdb::ColumnFamilyHandle* cf,
                         const BatchMetadata& metadata, BatchFile* file) {
  SG_RETURN_IF_ERROR(file->Open(store.options(), cf));
  SG_RETURN_IF_ERROR(store.WriteMetadataRecords(
      metadata, [&](const std::string& k, const std::string& v) { return file->Put(k, v); },
      [&](const std::string& k) { return file->Delete(k); }));
  return file->Finish();
}

// A batch: one BatchFile per key range, and one of metadata once written.
class BatchImpl final : public Store::Batch {
 public:
  // `owner`: the store that commits the batch, or null (a detached batch).
  BatchImpl(const StoreImpl* owner, const rocksdb::Options& options,
            rocksdb::ColumnFamilyHandle* cf, const std::string& path_prefix, size_t ranges,
            size_t vocab_size, PairBlockLayout layout)
      : owner_(owner), options_(options), cf_(cf), metadata_path_(path_prefix + "-meta.sst") {
    ranges_.reserve(ranges);
    for (size_t i = 0; i < ranges; ++i) {
      ranges_.push_back(std::make_unique<BatchFile>(fmt::format("{}-{}.sst", path_prefix, i),
                                                    vocab_size, layout));
    }
  }

  size_t ranges() const override { return ranges_.size(); }
  Status Add(size_t range, uint32_t row, uint32_t col, uint64_t value) override {
    return ranges_[range]->Add(options_, cf_, row, col, value);
  }
  Status FinishRange(size_t range) override { return ranges_[range]->Finish(); }
  Status WriteMetadata(const BatchMetadata& metadata) override {
    if (owner_ == nullptr) {
      return Status::InvalidArgument(
          fmt::format("{}: a detached batch carries no metadata", metadata_path_));
    }
    if (metadata_ != nullptr)
      return Status::InvalidArgument(fmt::format("{}: metadata written twice", metadata_path_));
    auto file = std::make_unique<BatchFile>(metadata_path_, 0, owner_->config().block_layout());
    SG_RETURN_IF_ERROR(WriteMetadataFile(*owner_, cf_, metadata, file.get()));
    metadata_digest_ = MetadataDigest(metadata);
    metadata_vocab_changes_ = owner_->vocab_changes();
    metadata_ = std::move(file);
    return Status::OK();
  }

  const StoreImpl* owner() const { return owner_; }
  std::vector<std::unique_ptr<BatchFile>>& range_files() { return ranges_; }
  // The metadata file WriteMetadata wrote, or null; its digest, and the
  // owner's vocab_changes() it was written against.
  const BatchFile* metadata_file() const { return metadata_.get(); }
  uint64_t metadata_digest() const { return metadata_digest_; }
  uint64_t metadata_vocab_changes() const { return metadata_vocab_changes_; }

 private:
  const StoreImpl* const owner_;  // null when detached
  const rocksdb::Options options_;
  rocksdb::ColumnFamilyHandle* const cf_;
  std::vector<std::unique_ptr<BatchFile>> ranges_;
  const std::string metadata_path_;
  std::unique_ptr<BatchFile> metadata_;
  uint64_t metadata_digest_ = 0;
  uint64_t metadata_vocab_changes_ = 0;
};

}  // namespace

void StoreImpl::WaitForL0Compactions(size_t files_per_batch) {
  const std::string l0_property =
      rocksdb::DB::Properties::kNumFilesAtLevelPrefix + std::string("0");
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(config::kStoreMaxL0WaitSeconds);
  while (std::chrono::steady_clock::now() < deadline) {
    std::string l0;
    int l0_files = 0;
    uint64_t running = 0, pending = 0, errors = 0;
    if (!db_->GetProperty(l0_property, &l0) ||
        std::from_chars(l0.data(), l0.data() + l0.size(), l0_files).ec != std::errc() ||
        static_cast<size_t>(l0_files) < config::kStoreMaxL0BatchesAtIngest * files_per_batch ||
        !db_->GetIntProperty(rocksdb::DB::Properties::kNumRunningCompactions, &running) ||
        !db_->GetIntProperty(rocksdb::DB::Properties::kCompactionPending, &pending) ||
        !db_->GetIntProperty(rocksdb::DB::Properties::kBackgroundErrors, &errors) ||
        (running == 0 && pending == 0) || errors > 0) {
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(config::kStoreL0PollMillis));
  }
}

Status StoreImpl::NewBatch(size_t ranges, std::unique_ptr<Batch>* batch) {
  batch->reset();
  SG_RETURN_IF_ERROR(RequireInitialized());
  if (ranges == 0)
    return Status::InvalidArgument(fmt::format("{}: a batch of no key ranges", dir_));
  // The batch files are ingested mostly into L0 and rewritten by compaction
  // soon: write them with the fast upper-level compression, not the
  // bottommost one SstFileWriter would otherwise pick.
  rocksdb::Options options = options_;
  options.bottommost_compression = rocksdb::kDisableCompressionOption;
  *batch =
      std::make_unique<BatchImpl>(this, options, db_->DefaultColumnFamily(),
                                  fmt::format("{}/{}/batch-{}", dir_, kStoreTmpDir, next_batch_++),
                                  ranges, vocab_.size(), config_.block_layout());
  return Status::OK();
}

Status StoreImpl::CommitBatch(std::unique_ptr<Batch> batch, const BatchMetadata& metadata) {
  SG_RETURN_IF_ERROR(RequireInitialized());
  auto* b = dynamic_cast<BatchImpl*>(batch.get());
  if (b == nullptr || b->owner() != this) {
    return Status::InvalidArgument(fmt::format("{}: batch of another store", dir_));
  }
  // The files of the ranges that hold pairs, which must not overlap: a pair
  // block in two files of one ingestion would be two entries of one key with
  // one sequence number.
  std::vector<BatchFile*> files;
  for (const auto& range : b->range_files()) {
    SG_RETURN_IF_ERROR(range->FlushBlock());
    if (range->blocks() == 0) continue;
    if (!files.empty() && files.back()->last_block() >= range->first_block()) {
      return Status::InvalidArgument(fmt::format("{}: key ranges of {} and {} overlap", dir_,
                                                 files.back()->path(), range->path()));
    }
    files.push_back(range.get());
  }
  std::vector<std::string> paths;
  std::vector<BatchFileTotals> totals;
  for (BatchFile* f : files) {
    SG_RETURN_IF_ERROR(f->Finish());  // a no-op for the ranges finished already
    paths.push_back(f->path());
    totals.push_back(f->totals());
  }
  std::string metadata_file;
  if (b->metadata_file() != nullptr) {
    if (b->metadata_digest() != MetadataDigest(metadata)) {
      return Status::InvalidArgument(
          fmt::format("{}: the metadata committed differs from the metadata written",
                      b->metadata_file()->path()));
    }
    // Its word records hold counts of the vocabulary it was written against.
    if (b->metadata_vocab_changes() != vocab_changes_) {
      return Status::InvalidArgument(fmt::format(
          "{}: the vocabulary changed after the metadata was written", b->metadata_file()->path()));
    }
    metadata_file = b->metadata_file()->path();
  }
  // `batch` goes out of scope after the ingestion and removes the temporary files.
  return IngestWithMetadata(std::move(paths), &totals, metadata, metadata_file);
}

Status StoreImpl::CommitBatchFiles(const std::vector<std::string>& files,
                                   const BatchMetadata& metadata) {
  SG_RETURN_IF_ERROR(RequireInitialized());
  std::vector<BatchFileTotals> totals(files.size());
  bool all_present = true;
  for (size_t i = 0; i < files.size() && all_present; ++i)
    SG_RETURN_IF_ERROR(ReadBatchFileTotals(options_, files[i], &totals[i], &all_present));
  SG_RETURN_IF_ERROR(IngestWithMetadata(files, all_present ? &totals : nullptr, metadata));
  // What RocksDB linked into the store is its own now.
  std::error_code ec;
  for (const std::string& path : files) std::filesystem::remove(path, ec);
  return Status::OK();
}

namespace {

// One ingestion of any number of files is one MANIFEST record: all or none
// of them is in the store after a crash.
rocksdb::IngestExternalFileOptions OneStepIngestion() {
  rocksdb::IngestExternalFileOptions opts;
  opts.move_files = true;  // a hard link: the files never exist twice on disk
  opts.allow_global_seqno = true;
  opts.allow_blocking_flush = true;
  opts.write_global_seqno = false;  // keep the files immutable; the seqno lives in the MANIFEST
  return opts;
}

}  // namespace

Status StoreImpl::IngestRecords(const std::function<Status(const RecordPut& put)>& write,
                                std::string_view what) {
  BatchFile file(fmt::format("{}/{}/records-{}.sst", dir_, kStoreTmpDir, next_batch_++), 0,
                 config_.block_layout());
  Status s = file.Open(options_, db_->DefaultColumnFamily());
  if (s.ok()) {
    s = write(
        [&](const std::string& key, const std::string& value) { return file.Put(key, value); });
  }
  if (s.ok()) s = file.Finish();
  if (!s.ok()) return Status::IOError(fmt::format("{}: {}: {}", dir_, what, s.message()));
  const rocksdb::Status ingested = db_->IngestExternalFile({file.path()}, OneStepIngestion());
  if (!ingested.ok()) return FromRocks(ingested, what);
  return RecordManifestLength(db_.get(), dir_);
}

Status StoreImpl::IngestWithMetadata(std::vector<std::string> pair_files,
                                     const std::vector<BatchFileTotals>* pair_totals,
                                     const BatchMetadata& metadata,
                                     const std::string& metadata_file) {
  // Metadata keys ("M/...", 'V') follow every pair block key ('C' ...):
  // their own small file does not overlap the pairs'. A batch without pairs
  // is its metadata file alone (it always holds the progress record's put
  // or delete): never WAL records, which RocksDB's recovery drops unseen
  // when a WAL is damaged or deleted, where a table's checksums fail.
  std::optional<BatchFile> meta;
  if (metadata_file.empty()) {
    meta.emplace(fmt::format("{}/{}/batch-{}-meta.sst", dir_, kStoreTmpDir, next_batch_++), 0,
                 config_.block_layout());
    SG_RETURN_IF_ERROR(WriteMetadataFile(*this, db_->DefaultColumnFamily(), metadata, &*meta));
  }
  pair_files.push_back(metadata_file.empty() ? meta->path() : metadata_file);
  // The totals' record ('W') follows the metadata's keys: a file of its own.
  // Files without totals (another build's) leave them unknown: the record is
  // deleted, and the next open for writing counts the pairs.
  std::optional<BatchFile> totals_file;
  if (config_.keeps_totals) {
    PairTotals totals;
    bool known = false;
    if (pair_totals != nullptr) SG_RETURN_IF_ERROR(TotalsAfterBatch(*pair_totals, &totals, &known));
    totals_file.emplace(fmt::format("{}/{}/batch-{}-totals.sst", dir_, kStoreTmpDir, next_batch_++),
                        0, config_.block_layout());
    SG_RETURN_IF_ERROR(totals_file->Open(options_, db_->DefaultColumnFamily()));
    SG_RETURN_IF_ERROR(known ? totals_file->Put(kTotalsKey, EncodeTotals(totals))
                             : totals_file->Delete(kTotalsKey));
    SG_RETURN_IF_ERROR(totals_file->Finish());
    pair_files.push_back(totals_file->path());
  }
  WaitForL0Compactions(pair_files.size());
  const rocksdb::Status s = db_->IngestExternalFile(pair_files, OneStepIngestion());
  if (!s.ok()) return FromRocks(s, fmt::format("committing batch {}", pair_files.front()));
  if (!config_.fixed_vocabulary && !metadata.word_counts.empty()) {
    for (uint32_t id = 0; id < metadata.word_counts.size(); ++id)
      vocab_[id].count += metadata.word_counts[id];
    ++vocab_changes_;
  }
  return RecordManifestLength(db_.get(), dir_);
}

Status Store::NewDetachedBatch(const std::string& path_prefix, size_t vocab_size,
                               PairBlockLayout layout, size_t ranges,
                               std::unique_ptr<Batch>* batch) {
  batch->reset();
  if (ranges == 0)
    return Status::InvalidArgument(fmt::format("{}: a batch of no key ranges", path_prefix));
  // As NewBatch: the fast upper-level compression. No column family: the
  // files go into whichever store ingests them.
  rocksdb::Options options = StoreOptions(kStoreReadMemoryBytes, /*create=*/false);
  options.bottommost_compression = rocksdb::kDisableCompressionOption;
  *batch = std::make_unique<BatchImpl>(nullptr, options, nullptr, path_prefix, ranges, vocab_size,
                                       layout);
  return Status::OK();
}

Status Store::FinishDetachedBatch(std::unique_ptr<Batch> batch, std::vector<std::string>* files) {
  files->clear();
  auto* b = dynamic_cast<BatchImpl*>(batch.get());
  if (b == nullptr || b->owner() != nullptr)
    return Status::InvalidArgument("FinishDetachedBatch: not a detached batch");
  for (const auto& range : b->range_files()) {
    SG_RETURN_IF_ERROR(range->Finish());
    if (range->blocks() == 0) continue;
    range->Release();
    files->push_back(range->path());
  }
  return Status::OK();
}

}  // namespace streamglove
