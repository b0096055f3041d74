// StoreImpl: the RocksDB-backed Store (store.h). Internal to src/store/; the
// implementation is split by concern: store_open.cc (directory, lock,
// options, loading metadata), store.cc (metadata reads, pair scans, size),
// store_batch.cc (batches and their atomic commit), batch_metadata.cc (a
// batch's metadata as records), store_totals.cc (the totals' record).
//
// Invariants: db_ is open for the object's lifetime and lock_ holds the
// exclusive lock on DIR/LOCK.streamglove; once initialized_, config_ and
// vocab_ equal what the store holds.
//
// Thread-safety: none (see Store).
#ifndef STREAMGLOVE_STORE_STORE_IMPL_H_
#define STREAMGLOVE_STORE_STORE_IMPL_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include <rocksdb/db.h>
#include <rocksdb/options.h>

#include "store/pair_block.h"
#include "store/store.h"
#include "util/config.h"
#include "util/file_lock.h"

namespace streamglove {

inline constexpr char kStoreLockFile[] = "LOCK.streamglove";

// The RocksDB options of a store (store_open.cc); batch files written
// elsewhere (Store::NewDetachedBatch) use them too.
rocksdb::Options StoreOptions(size_t memory_bytes, bool create);
inline constexpr char kStoreTmpDir[] = "tmp";

// The ReadOptions of every read of a store. On the range-deletion path,
// RocksDB before 8.6 drops the error of a level's iterator that steps into
// a file whose first block fails its checksum (facebook/rocksdb#11782): a
// scan skips the file's keys and ends with an OK status. A store holds no
// range deletions, so its reads leave that path.
inline rocksdb::ReadOptions StoreReadOptions() {
  rocksdb::ReadOptions ro;
  ro.ignore_range_deletions = true;
  return ro;
}

// What identifies a batch's metadata (batch_metadata.cc): CommitBatch
// compares the metadata it gets with what Batch::WriteMetadata wrote
// without keeping a copy of the word counts (8 bytes a word).
uint64_t MetadataDigest(const BatchMetadata& metadata);

struct BatchFileTotals;  // store/pair_totals.h

class StoreImpl final : public Store {
 public:
  // `lock`: DIR/LOCK.streamglove, held until RocksDB is closed.
  StoreImpl(std::string dir, std::unique_ptr<FileLock> lock);
  ~StoreImpl() override;
  StoreImpl(const StoreImpl&) = delete;
  StoreImpl& operator=(const StoreImpl&) = delete;

  // Steps of Store::Open(), in this order.
  // Open() only, before anything is written: an existing store is opened
  // read-only and its table files read whole, their block checksums checked
  // (Corruption otherwise), so that a damaged store takes no batch, words or
  // upgrade, not even the new MANIFEST and WAL of an open for writing: a
  // commit would build on tables nothing has read since they were written,
  // and compactions would carry the damage into new files. It costs one read
  // of the store per Open() for writing (docs/reliability.md: the figures).
  Status CheckBeforeWriting(size_t memory_bytes);
  Status OpenDb(size_t memory_bytes, bool create, bool read_only);
  Status LoadMetadata();
  // Rewrites an older format's config record as this build's (Open() only).
  Status UpgradeFormat();
  // Counts the pairs of a store without a totals' record (an earlier
  // build's, or one whose last commit carried no totals) and records them,
  // with the config flag that keeps earlier builds out (Open() only).
  Status CountTotalsIfUnknown();

  bool initialized() const override { return initialized_; }
  Status Initialize(const StoreConfig& config, std::vector<VocabEntry> vocab) override;
  const StoreConfig& config() const override { return config_; }
  const std::vector<VocabEntry>& vocab() const override { return vocab_; }
  Status AddWords(const std::vector<std::string>& words) override;
  uint64_t last_added_words() const override { return last_added_words_; }
  Status SetWordsHeld(const std::vector<std::string>& keys) override;
  Status GetWordsHeld(std::vector<std::string>* keys, bool* recorded) override;
  // Reads the metadata record `key` into *value; *found is false (and the
  // status OK) when the store has none.
  Status GetRecord(const std::string& key, std::string* value, bool* found);

  Status ListInputs(std::vector<InputRecord>* inputs) override;
  Status FindInput(const std::string& fingerprint, InputRecord* record, bool* found) override;
  Status GetProgress(IngestProgress* progress, bool* found) override;
  Status GetPairTotals(PairTotals* totals, bool* known) override;
  Status CountPairs(int threads, PairTotals* totals) override;

  Status NewBatch(size_t ranges, std::unique_ptr<Batch>* batch) override;
  Status CommitBatch(std::unique_ptr<Batch> batch, const BatchMetadata& metadata) override;
  Status CommitBatchFiles(const std::vector<std::string>& files,
                          const BatchMetadata& metadata) override;

  // May run on several threads at once (CountPairs): it reads db_, config_
  // and vocab_ alone.
  Status ForEachPairInRows(uint32_t row_begin, uint32_t row_end, const PairVisitor& f) override;
  Status ForEachPairOfRows(const std::vector<uint32_t>& rows, const PairVisitor& f) override;

  uint64_t SizeOnDisk() override;
  Status VerifyChecksums() override;

  const std::string& dir() const { return dir_; }
  const rocksdb::Options& options() const { return options_; }
  // Changes to vocab_ so far (words added, counts committed): a batch's
  // metadata written against one vocabulary is refused against another.
  uint64_t vocab_changes() const { return vocab_changes_; }
  // "DIR: what: <RocksDB's message>", with RocksDB's code mapped to ours
  // (a full disk is an IOError).
  Status FromRocks(const rocksdb::Status& s, std::string_view what) const;

  // Writes the records of `metadata`'s changes (input records, the progress
  // record, word counts) through `put` and `erase`, in key order, after
  // checking them against the store. Reads config_ and vocab_ alone, so a
  // batch may call it while other threads add its pairs.
  using RecordPut = std::function<Status(const std::string& key, const std::string& value)>;
  using RecordErase = std::function<Status(const std::string& key)>;
  Status WriteMetadataRecords(const BatchMetadata& metadata, const RecordPut& put,
                              const RecordErase& erase) const;

 private:
  Status RequireInitialized() const;
  // Calls f for the pairs of the pair block at `it` (row and block into
  // *row, *block); `entries` is scratch.
  Status VisitPairBlock(const rocksdb::Iterator& it, const PairVisitor& f, uint32_t* row,
                        uint32_t* block, std::vector<ColumnValue>* entries) const;
  // Returns once L0 holds fewer than kStoreMaxL0BatchesAtIngest batches of
  // `files_per_batch` files, or no compaction is running or pending that
  // could make it so, or after kStoreMaxL0WaitSeconds.
  void WaitForL0Compactions(size_t files_per_batch);
  // Writes the records that `write` passes to its argument (key, value), in
  // key order, as one SST file, and ingests it: one step, as a WriteBatch
  // would be, but streamed to disk, where a WriteBatch and then the memtable
  // would each hold every record (a growing store's vocabulary: millions of
  // words, about 60 bytes each in either). `what` names the step in errors.
  Status IngestRecords(const std::function<Status(const RecordPut& put)>& write,
                       std::string_view what);
  // Ingests `pair_files` (key ranges not overlapping, possibly none) with
  // the metadata changes and the totals' record, all in one step.
  // `pair_totals`: each file's totals, or null when they are not known.
  // `metadata_file`: the changes written already (Batch::WriteMetadata), or
  // empty.
  Status IngestWithMetadata(std::vector<std::string> pair_files,
                            const std::vector<BatchFileTotals>* pair_totals,
                            const BatchMetadata& metadata,
                            const std::string& metadata_file = std::string());
  // The store's totals once batch files with `files`' totals are added:
  // *known is false when the store's are not known. The pairs stay exact
  // while no file's key range holds a pair block of the store.
  Status TotalsAfterBatch(const std::vector<BatchFileTotals>& files, PairTotals* totals,
                          bool* known);
  // The rows where `ranges` scans of about equal bytes start (the first 0),
  // from the key ranges of the table files of the lowest level that holds
  // pairs, where most of them lie; fewer where the files are fewer.
  std::vector<uint32_t> PairScanStarts(size_t ranges);

  const std::string dir_;
  const std::unique_ptr<FileLock> lock_;
  rocksdb::Options options_;  // the DB's; batches write their SST files with a copy
  std::unique_ptr<rocksdb::DB> db_;
  uint64_t next_batch_ = 0;  // numbers DIR/tmp/batch-<n>-<range>.sst

  bool initialized_ = false;
  StoreConfig config_;
  std::vector<VocabEntry> vocab_;
  uint64_t last_added_words_ = 0;
  uint64_t vocab_changes_ = 0;
};

}  // namespace streamglove

#endif  // STREAMGLOVE_STORE_STORE_IMPL_H_
