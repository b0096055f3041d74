// Batches: pairs written to a temporary SST file, committed with their
// metadata changes by one IngestExternalFile.
#include <fmt/format.h>
#include <rocksdb/sst_file_writer.h>
#include <rocksdb/write_batch.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <thread>

#include "store/pair_block.h"
#include "store/store_impl.h"
#include "store/store_records.h"

namespace streamglove {

namespace {

// Writes the pairs of one batch as Merge entries of DIR/tmp/batch-<n>.sst;
// removes the file on destruction (after a commit, RocksDB has moved it).
//
// Invariants: entries_ holds the columns of block (row_, block_) added since
// the last Merge entry; the first error is kept and returned ever after.
class BatchImpl final : public Store::Batch {
 public:
  BatchImpl(const StoreImpl* owner, std::string path, size_t vocab_size)
      : owner_(owner), path_(std::move(path)), vocab_size_(vocab_size) {}
  ~BatchImpl() override {
    writer_.reset();
    ::unlink(path_.c_str());
  }

  Status Open(const rocksdb::Options& options, rocksdb::ColumnFamilyHandle* cf) {
    writer_ = std::make_unique<rocksdb::SstFileWriter>(rocksdb::EnvOptions(), options, cf);
    return Check(writer_->Open(path_));
  }

  Status Add(uint32_t row, uint32_t col, uint64_t value) override {
    SG_RETURN_IF_ERROR(error_);
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
    const uint32_t block = col / kBlockColumns;
    if (any_ && (row != row_ || block != block_)) SG_RETURN_IF_ERROR(FlushBlock());
    any_ = true;
    row_ = row;
    col_ = col;
    block_ = block;
    entries_.push_back(ColumnValue{col, value});
    return Status::OK();
  }

  // Writes the open block, if any.
  Status FlushBlock() {
    SG_RETURN_IF_ERROR(error_);
    if (entries_.empty()) return Status::OK();
    fragment_.clear();
    EncodeFragment(block_, entries_, &fragment_);
    entries_.clear();
    ++blocks_;
    return Check(writer_->Merge(EncodePairBlockKey(row_, block_), fragment_));
  }

  Status Put(const std::string& key, const std::string& value) {
    SG_RETURN_IF_ERROR(error_);
    return Check(writer_->Put(key, value));
  }
  Status Delete(const std::string& key) {
    SG_RETURN_IF_ERROR(error_);
    return Check(writer_->Delete(key));
  }
  Status Finish() {
    SG_RETURN_IF_ERROR(error_);
    return Check(writer_->Finish());
  }

  const StoreImpl* owner() const { return owner_; }
  const std::string& path() const { return path_; }
  uint64_t blocks() const { return blocks_; }

 private:
  Status Check(const rocksdb::Status& s) {
    if (!s.ok() && error_.ok())
      error_ = Status::IOError(fmt::format("{}: {}", path_, s.ToString()));
    return error_;
  }

  const StoreImpl* const owner_;  // identity only; never dereferenced
  const std::string path_;
  const size_t vocab_size_;
  std::unique_ptr<rocksdb::SstFileWriter> writer_;
  Status error_;

  bool any_ = false;  // a pair was added; (row_, col_) is the last one
  uint32_t row_ = 0, col_ = 0, block_ = 0;
  std::vector<ColumnValue> entries_;
  std::string fragment_;
  uint64_t blocks_ = 0;  // Merge entries written
};

}  // namespace

void StoreImpl::WaitForL0Compactions() {
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
        l0_files < config::kStoreMaxL0FilesAtIngest ||
        !db_->GetIntProperty(rocksdb::DB::Properties::kNumRunningCompactions, &running) ||
        !db_->GetIntProperty(rocksdb::DB::Properties::kCompactionPending, &pending) ||
        !db_->GetIntProperty(rocksdb::DB::Properties::kBackgroundErrors, &errors) ||
        (running == 0 && pending == 0) || errors > 0) {
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(config::kStoreL0PollMillis));
  }
}

Status StoreImpl::NewBatch(std::unique_ptr<Batch>* batch) {
  batch->reset();
  SG_RETURN_IF_ERROR(RequireInitialized());
  auto b = std::make_unique<BatchImpl>(
      this, fmt::format("{}/{}/batch-{}.sst", dir_, kStoreTmpDir, next_batch_++), vocab_.size());
  // The batch file is ingested mostly into L0 and rewritten by compaction
  // soon: write it with the fast upper-level compression, not the
  // bottommost one SstFileWriter would otherwise pick.
  rocksdb::Options options = options_;
  options.bottommost_compression = rocksdb::kDisableCompressionOption;
  SG_RETURN_IF_ERROR(b->Open(options, db_->DefaultColumnFamily()));
  *batch = std::move(b);
  return Status::OK();
}

Status StoreImpl::CommitBatch(std::unique_ptr<Batch> batch, const IngestProgress* progress,
                              const std::vector<InputRecord>& finished) {
  SG_RETURN_IF_ERROR(RequireInitialized());
  auto* b = dynamic_cast<BatchImpl*>(batch.get());
  if (b == nullptr || b->owner() != this) {
    return Status::InvalidArgument(fmt::format("{}: batch of another store", dir_));
  }
  // Metadata in key order, as an SST file requires: "M/input/..." < "M/progress".
  std::vector<std::pair<std::string, std::string>> inputs;
  inputs.reserve(finished.size());
  for (const InputRecord& record : finished) {
    std::string value;
    EncodeInputRecord(record, &value);
    inputs.emplace_back(InputKey(record.fingerprint), std::move(value));
  }
  std::sort(inputs.begin(), inputs.end());
  for (size_t i = 1; i < inputs.size(); ++i) {
    if (inputs[i].first == inputs[i - 1].first) {
      return Status::InvalidArgument(
          fmt::format("{}: input {} finished twice in one batch", dir_, inputs[i].first));
    }
  }
  std::string progress_value;
  if (progress != nullptr) EncodeProgress(*progress, &progress_value);

  SG_RETURN_IF_ERROR(b->FlushBlock());
  if (b->blocks() == 0) {
    // SstFileWriter refuses an empty file; metadata alone goes through the WAL.
    rocksdb::WriteBatch wb;
    rocksdb::Status s;
    for (const auto& [key, value] : inputs) {
      if (s.ok()) s = wb.Put(key, value);
    }
    if (s.ok())
      s = progress != nullptr ? wb.Put(kProgressKey, progress_value) : wb.Delete(kProgressKey);
    if (s.ok()) {
      rocksdb::WriteOptions wo;
      wo.sync = true;
      s = db_->Write(wo, &wb);
    }
    return s.ok() ? Status::OK() : FromRocks(s, "committing batch metadata");
  }

  for (const auto& [key, value] : inputs) SG_RETURN_IF_ERROR(b->Put(key, value));
  SG_RETURN_IF_ERROR(progress != nullptr ? b->Put(kProgressKey, progress_value)
                                         : b->Delete(kProgressKey));
  SG_RETURN_IF_ERROR(b->Finish());
  WaitForL0Compactions();
  rocksdb::IngestExternalFileOptions opts;
  opts.move_files = true;  // a hard link: the batch never exists twice on disk
  opts.allow_global_seqno = true;
  opts.allow_blocking_flush = true;
  opts.write_global_seqno = false;  // keep the file immutable; the seqno lives in the MANIFEST
  const rocksdb::Status s = db_->IngestExternalFile({b->path()}, opts);
  // `batch` goes out of scope here and removes the temporary file.
  if (!s.ok()) return FromRocks(s, fmt::format("committing batch {}", b->path()));
  return Status::OK();
}

}  // namespace streamglove
