// Store::Open: directory checks, the process lock, RocksDB options, and
// loading config and vocabulary into memory.
#include <algorithm>
#include <filesystem>
#include <system_error>

#include <fmt/format.h>
#include <rocksdb/cache.h>
#include <rocksdb/convenience.h>
#include <rocksdb/table.h>

#include "store/manifest_length.h"
#include "store/pair_block_merge_operator.h"
#include "store/rocks_message.h"
#include "store/store_impl.h"
#include "store/store_records.h"
#include "store/store_tuning.h"
#include "util/file.h"

namespace streamglove {

namespace fs = std::filesystem;

namespace {

Status NoStore(const std::string& dir) {
  return Status::NotFound(fmt::format("{}: no streamglove store here", dir));
}

Status FsError(const std::string& path, const std::error_code& ec) {
  return ErrnoStatus(path, ec.value());
}

// A store directory without RocksDB's CURRENT is either one whose creation
// was killed before RocksDB wrote it (nothing committed: it may be created
// again) or a damaged store, which must never be created over: RocksDB would
// start an empty database beside the old tables and the next commit's
// obsolete-file sweep would delete them. The tables and a WAL that holds
// records are what a store commits to, so they tell the two apart.
Status CheckNoOrphanedData(const std::string& dir) {
  uint64_t tables = 0, wal_bytes = 0;
  std::vector<std::string> manifests;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path& path = it->path();
    const std::string name = path.filename().string();
    if (path.extension() == ".sst") ++tables;
    if (path.extension() == ".log") wal_bytes += it->file_size(ec);
    if (name.rfind("MANIFEST-", 0) == 0) manifests.push_back(name);
  }
  if (ec) return FsError(dir, ec);
  if (tables == 0 && wal_bytes == 0) return Status::OK();
  std::sort(manifests.begin(), manifests.end());
  return Status::Corruption(fmt::format(
      "{}: a damaged store: RocksDB's CURRENT file is missing ({} table files, {} bytes of WAL "
      "and {} remain); nothing was changed: restore the directory from a copy{}, or remove it "
      "to start a new store",
      dir, tables, wal_bytes, manifests.empty() ? "no MANIFEST" : manifests.back(),
      manifests.empty()
          ? ""
          : fmt::format(" (or write CURRENT holding the line '{}')", manifests.back())));
}

// Creates a missing directory (with `create`), and refuses a directory that
// holds something other than a store, or a damaged one, before anything is
// written into it.
Status CheckDirectory(const std::string& dir, bool create) {
  std::error_code ec;
  const fs::file_status st = fs::status(dir, ec);
  if (ec && ec != std::errc::no_such_file_or_directory) return FsError(dir, ec);
  if (!fs::exists(st)) {
    if (!create) return NoStore(dir);
    fs::create_directories(dir, ec);
    return ec ? FsError(dir, ec) : Status::OK();
  }
  if (!fs::is_directory(st)) {
    return Status::Corruption(fmt::format("{}: not a streamglove store (not a directory)", dir));
  }
  const bool empty = fs::is_empty(dir, ec);
  if (ec) return FsError(dir, ec);
  if (empty) return create ? Status::OK() : NoStore(dir);
  const bool has_current = fs::exists(fs::path(dir) / "CURRENT", ec);
  if (ec) return FsError(dir, ec);
  if (has_current) return Status::OK();
  const bool has_lock = fs::exists(fs::path(dir) / kStoreLockFile, ec);
  if (ec) return FsError(dir, ec);
  if (!has_lock) return Status::Corruption(fmt::format("{}: not a streamglove store", dir));
  return CheckNoOrphanedData(dir);
}

// Takes the exclusive lock on DIR/LOCK.streamglove (FileLock).
// `pid_required`: false for readers, which must work on a full disk.
Status LockDirectory(const std::string& dir, bool pid_required, std::unique_ptr<FileLock>* lock) {
  return FileLock::Acquire(dir + "/" + kStoreLockFile, dir + ": store is in use by another process",
                           pid_required, lock);
}

// Empties DIR/tmp: batch files of a process that was killed before commit.
Status ResetTmpDir(const std::string& dir) {
  const fs::path tmp = fs::path(dir) / kStoreTmpDir;
  std::error_code ec;
  fs::remove_all(tmp, ec);
  if (ec) return FsError(tmp.string(), ec);
  fs::create_directory(tmp, ec);
  return ec ? FsError(tmp.string(), ec) : Status::OK();
}

// Deletes the empty WAL files earlier opens left: RocksDB before 8.3 creates a
// WAL on every open and deletes it only after a memtable flush, which a store
// that is opened, read and closed never has (facebook/rocksdb#11313, fixed by
// #11409). An empty WAL holds no record, and with
// track_and_verify_wals_in_manifest off (StoreOptions) RocksDB does not miss
// it. Called under the lock, before RocksDB opens the directory.
Status RemoveEmptyWalFiles(const std::string& dir) {
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path& path = it->path();
    if (path.extension() != ".log" || !it->is_regular_file(ec) || ec) continue;
    if (it->file_size(ec) == 0 && !ec) fs::remove(path, ec);
    if (ec) return FsError(path.string(), ec);
  }
  return ec ? FsError(dir, ec) : Status::OK();
}

}  // namespace

rocksdb::Options StoreOptions(size_t memory_bytes, bool create) {
  rocksdb::Options options;
  options.create_if_missing = create;
  options.merge_operator = NewPairBlockMergeOperator();

  rocksdb::BlockBasedTableOptions table;
  table.block_cache = rocksdb::NewLRUCache(config::StoreCacheBytes(memory_bytes));
  table.cache_index_and_filter_blocks = true;
  table.pin_l0_filter_and_index_blocks_in_cache = true;
  table.block_size = config::kStoreBlockBytes;
  // No bloom filter: pair blocks are only scanned, metadata keys are few.
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));

  options.write_buffer_size = config::kStoreWriteBufferBytes;
  options.max_write_buffer_number = config::kStoreMaxWriteBuffers;
  options.max_open_files = config::kStoreMaxOpenFiles;
  options.max_background_jobs = config::kStoreBackgroundJobs;
  // Tables are opened on the opening thread. With more, RocksDB starts its
  // file-opening threads on every open, files or none, into a vector of
  // std::thread; one refused by the machine (ulimit -v: each new thread
  // reserves a stack and a malloc arena) destroys the others while joinable,
  // and std::terminate aborts the process instead of returning an error.
  // With max_open_files bounded, an open loads at most 16 tables, so one
  // thread costs little.
  options.max_file_opening_threads = 1;
  options.level_compaction_dynamic_level_bytes = true;
  options.info_log_level = rocksdb::WARN_LEVEL;
  options.keep_log_file_num = config::kStoreInfoLogFiles;
  options.track_and_verify_wals_in_manifest = false;  // RemoveEmptyWalFiles relies on it

  const std::vector<rocksdb::CompressionType> supported = rocksdb::GetSupportedCompressions();
  const auto has = [&](rocksdb::CompressionType t) {
    return std::find(supported.begin(), supported.end(), t) != supported.end();
  };
  options.compression = has(rocksdb::kLZ4Compression)      ? rocksdb::kLZ4Compression
                        : has(rocksdb::kSnappyCompression) ? rocksdb::kSnappyCompression
                                                           : rocksdb::kNoCompression;
  options.bottommost_compression = has(rocksdb::kZSTD) ? rocksdb::kZSTD : options.compression;
  return options;
}

Status Store::Open(const std::string& dir, size_t memory_bytes, bool create,
                   std::unique_ptr<Store>* store) {
  store->reset();
  SG_RETURN_IF_ERROR(CheckDirectory(dir, create));
  std::unique_ptr<FileLock> lock;
  SG_RETURN_IF_ERROR(LockDirectory(dir, /*pid_required=*/true, &lock));
  SG_RETURN_IF_ERROR(CheckManifestLength(dir));
  auto impl = std::make_unique<StoreImpl>(dir, std::move(lock));
  SG_RETURN_IF_ERROR(impl->CheckBeforeWriting(memory_bytes));
  SG_RETURN_IF_ERROR(ResetTmpDir(dir));
  SG_RETURN_IF_ERROR(RemoveEmptyWalFiles(dir));
  SG_RETURN_IF_ERROR(impl->OpenDb(memory_bytes, create, /*read_only=*/false));
  SG_RETURN_IF_ERROR(impl->LoadMetadata());
  SG_RETURN_IF_ERROR(impl->UpgradeFormat());
  SG_RETURN_IF_ERROR(impl->CountTotalsIfUnknown());
  *store = std::move(impl);
  return Status::OK();
}

Status Store::OpenForReading(const std::string& dir, size_t memory_bytes,
                             std::unique_ptr<Store>* store) {
  store->reset();
  SG_RETURN_IF_ERROR(CheckDirectory(dir, /*create=*/false));
  std::unique_ptr<FileLock> lock;
  SG_RETURN_IF_ERROR(LockDirectory(dir, /*pid_required=*/false, &lock));
  SG_RETURN_IF_ERROR(CheckManifestLength(dir));
  auto impl = std::make_unique<StoreImpl>(dir, std::move(lock));
  SG_RETURN_IF_ERROR(impl->OpenDb(memory_bytes, /*create=*/false, /*read_only=*/true));
  SG_RETURN_IF_ERROR(impl->LoadMetadata());
  *store = std::move(impl);
  return Status::OK();
}

Status StoreImpl::OpenDb(size_t memory_bytes, bool create, bool read_only) {
  // Checked under the lock: the directory may hold only LOCK.streamglove,
  // left by a process killed before RocksDB created the database.
  std::error_code ec;
  if (!create && !fs::exists(fs::path(dir_) / "CURRENT", ec)) {
    return ec ? FsError(dir_, ec) : NoStore(dir_);
  }
  options_ = StoreOptions(memory_bytes, create);
  rocksdb::DB* db = nullptr;
  // Read-only: nothing is written (no WAL replay flush, no new MANIFEST), so
  // a store on a full disk can still be read and verified.
  const rocksdb::Status s = read_only ? rocksdb::DB::OpenForReadOnly(options_, dir_, &db)
                                      : rocksdb::DB::Open(options_, dir_, &db);
  if (!s.ok()) return FromRocks(s, "opening RocksDB");
  db_.reset(db);
  // An open for writing starts a new MANIFEST.
  return read_only ? Status::OK() : RecordManifestLength(db_.get(), dir_);
}

Status StoreImpl::LoadMetadata() {
  std::string value;
  rocksdb::Status s = db_->Get(StoreReadOptions(), kConfigKey, &value);
  if (s.IsNotFound()) {
    // A store that was never initialized holds nothing at all.
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(StoreReadOptions()));
    it->SeekToFirst();
    if (!it->status().ok()) return FromRocks(it->status(), "reading");
    if (it->Valid()) {
      return Status::Corruption(
          fmt::format("{}: not a streamglove store (RocksDB data without {})", dir_, kConfigKey));
    }
    return Status::OK();
  }
  if (!s.ok()) return FromRocks(s, fmt::format("reading {}", kConfigKey));

  uint32_t version = 0;
  if (!DecodeConfigVersion(value, &version)) {
    return Status::Corruption(fmt::format("{}: {}: malformed record", dir_, kConfigKey));
  }
  if (version > kStoreFormatVersion) {
    return Status::InvalidArgument(
        fmt::format("{}: store format version {} is newer than this build supports ({})", dir_,
                    version, kStoreFormatVersion));
  }
  if (version < 1) {
    return Status::Corruption(
        fmt::format("{}: {}: unknown store format version {}", dir_, kConfigKey, version));
  }
  if (!DecodeConfig(value, &config_)) {
    return Status::Corruption(fmt::format("{}: {}: malformed record", dir_, kConfigKey));
  }

  vocab_.clear();
  const std::string first(1, kVocabKeyPrefix), end(1, kVocabKeyPrefix + 1);
  const rocksdb::Slice upper(end);
  rocksdb::ReadOptions ro = StoreReadOptions();
  ro.iterate_upper_bound = &upper;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro));
  for (it->Seek(first); it->Valid(); it->Next()) {
    uint32_t id = 0;
    VocabEntry entry;
    if (!DecodeVocabKey(std::string_view(it->key().data(), it->key().size()), &id) ||
        id != vocab_.size() ||
        !DecodeVocabValue(std::string_view(it->value().data(), it->value().size()), &entry)) {
      return Status::Corruption(fmt::format("{}: vocabulary entry {}: malformed or out of sequence",
                                            dir_, vocab_.size()));
    }
    vocab_.push_back(std::move(entry));
  }
  if (!it->status().ok()) return FromRocks(it->status(), "reading the vocabulary");
  // Version 1 stores have no record of additions.
  bool found = false;
  SG_RETURN_IF_ERROR(GetRecord(kAdditionKey, &value, &found));
  uint64_t first_id = 0;
  if (found && !DecodeAddition(value, &first_id, &last_added_words_)) {
    return Status::Corruption(fmt::format("{}: {}: malformed record", dir_, kAdditionKey));
  }
  initialized_ = true;
  return Status::OK();
}

Status StoreImpl::CheckBeforeWriting(size_t memory_bytes) {
  std::error_code ec;
  if (!fs::exists(fs::path(dir_) / "CURRENT", ec)) return ec ? FsError(dir_, ec) : Status::OK();
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s =
      rocksdb::DB::OpenForReadOnly(StoreOptions(memory_bytes, /*create=*/false), dir_, &raw);
  const std::unique_ptr<rocksdb::DB> db(raw);
  if (s.ok()) s = db->VerifyChecksum();
  if (s.ok()) return Status::OK();
  // A file RocksDB's records name that is gone is damage too.
  if (!s.IsCorruption() && !s.IsNotFound() && !s.IsPathNotFound()) {
    return FromRocks(s, "opening RocksDB");
  }
  return Status::Corruption(fmt::format(
      "{}: the store is damaged ({}); nothing was written to it: `streamglove verify --store {}` "
      "lists the problems; restore the store from a copy, or build it again",
      dir_, RocksMessage(s), dir_));
}

Status StoreImpl::UpgradeFormat() {
  if (!initialized_ || config_.format_version != 1) return Status::OK();
  // Version 1 differs from 2 only in M/config: its vocabulary and input
  // records read as a fixed-vocabulary store's (DecodeConfig), so rewriting
  // the record is the whole upgrade, and older builds then refuse the store.
  // Not to version 3: its narrow pair blocks stay (kNarrowBlocksFormatVersion).
  StoreConfig upgraded = config_;
  upgraded.format_version = kNarrowBlocksFormatVersion;
  std::string value;
  EncodeConfig(upgraded, &value);
  SG_RETURN_IF_ERROR(IngestRecords([&](const RecordPut& put) { return put(kConfigKey, value); },
                                   "upgrading the store format"));
  config_ = upgraded;
  return Status::OK();
}

}  // namespace streamglove
