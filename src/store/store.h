// Store: a directory holding one corpus's co-occurrence counts in RocksDB,
// with its vocabulary, counting configuration and a record of what has been
// ingested. Layout and format version: docs/formats.md.
//
// Keys (RocksDB, default column family):
//   'C' ...                 pair blocks (pair_block.h), summed by the merge operator
//   "M/config"              StoreConfig
//   "M/input/" fingerprint  InputRecord of a completely ingested input
//   "M/progress"            IngestProgress of the input being ingested, if any
//   "M/addition"            the last ingest's new words: first id, how many
//   "M/words-held"          inputs whose every word the vocabulary holds
//   "V" id (4 bytes BE)     vocabulary entry: word '\t' count
//   "W/totals"              PairTotals, and the ingest state they hold for
//
// Word ids are assigned once, in the order words first reach the store, and
// never change. In a growing store a word's count is what the committed
// batches counted of it (a word may have count 0: assigned by an ingest that
// was interrupted before a batch counted it), and readers rank the words by
// count when they read (store/ranked_vocab.h), so ids need not be ranks. A
// fixed vocabulary keeps the counts and order it was made with: ids are ranks.
//
// Atomicity: every CommitBatch() writes its pairs and its metadata changes as
// SST files, one per key range and one of metadata, ingested by one
// IngestExternalFile (one MANIFEST record): all of them or none is in the
// store after a crash.
//
// Totals: every commit updates "W/totals" in the same ingestion (a file of
// its own, as the metadata's), with the totals of the batch's files, which
// each file also carries in its table properties (store/pair_totals.h); a
// commit of files without them deletes the record.
//
// Exclusivity: Open() takes an exclusive flock on DIR/LOCK.streamglove for
// the object's lifetime; a second process gets Status::Busy.
//
// Memory: RocksDB's block cache (memory_bytes / 16, clamped to 4..128 MiB,
// holding index and filter blocks too) plus two 4 MiB memtables; ingest
// budgets that plus 16 MiB for table readers and the rest.
//
// Thread-safety: a Store is used from one thread at a time.
#ifndef STREAMGLOVE_STORE_STORE_H_
#define STREAMGLOVE_STORE_STORE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "store/pair_block.h"
#include "streamglove/options.h"
#include "streamglove/status.h"
#include "streamglove/vocab_file.h"

namespace streamglove {

// Bumped on any change to what a store holds or how; a store of a newer
// version is refused.
// Version 1 (a vocabulary fixed at creation, ids = ranks, counts never
// updated) is read as a fixed-vocabulary store and upgraded in place to
// version 2 by the first Open() for writing. Version 3 differs from 2 only
// in its pairs' blocks (PairBlockLayout::kWide): stores of versions 1 and 2
// keep narrow blocks, whatever build adds to them, as their older batches'
// blocks would overlap wide ones.
inline constexpr uint32_t kStoreFormatVersion = 3;
// The version a version 1 store is upgraded to: its pairs' blocks are narrow.
inline constexpr uint32_t kNarrowBlocksFormatVersion = 2;

struct StoreConfig {
  uint32_t format_version = kStoreFormatVersion;
  uint32_t window = 10;
  bool symmetric = true;
  DistanceWeighting weighting = DistanceWeighting::kHarmonic;
  // word2vec's subsampling threshold t applied before windowing, in
  // expectation (IngestOptions::subsample); 0: none.
  double subsample = 0;
  // Fixed-point units per count (CountScale): every weight of a pair is a
  // whole number of units.
  uint64_t scale = 2520;
  // Corpus options that change the counts.
  std::string tokenizer = "whitespace";
  bool lowercase = false;
  std::string json_field = "text";
  // The fingerprint of the phrase list its tokens were joined with
  // (PhraseList::fingerprint), or empty for none.
  std::string phrases;
  // The vocabulary is the one chosen at creation, with its counts and order
  // (ids are ranks): tokens outside it are dropped before windowing
  // (Stanford GloVe's cooccur). Otherwise every token is counted and an
  // ingest adds the words it meets.
  bool fixed_vocabulary = false;
  // The vocabulary cut readers apply when not told otherwise: words with at
  // least min_count occurrences, at most max_vocab of them (0: all).
  uint64_t min_count = 5;
  uint64_t max_vocab = 0;
  // The store keeps its PairTotals in "W/totals" (formats 2 on). Builds
  // before the record refuse such a store (an unknown flag): their commits
  // would change the pairs and leave the record as it was. A store of such
  // a build gets the record at its first open for writing by this one.
  bool keeps_totals = true;

  // How the store's rows are cut into pair blocks (pair_block.h).
  PairBlockLayout block_layout() const {
    return format_version > kNarrowBlocksFormatVersion ? PairBlockLayout::kWide
                                                       : PairBlockLayout::kNarrow;
  }
};

// A completely ingested input.
struct InputRecord {
  std::string fingerprint;  // content fingerprint (see ingest), hex
  std::string path;         // as given when ingested
  uint64_t bytes = 0;       // decompressed bytes
  uint64_t tokens = 0;      // tokens read (in and out of vocabulary)
  // The decompressed bytes end at a document end (a newline, or nothing), so
  // bytes appended later start a new document: the input may grow.
  bool ends_at_document_end = false;
};

// The input being ingested when the last batch was committed.
struct IngestProgress {
  std::string fingerprint;
  std::string path;
  uint64_t offset = 0;            // decompressed byte offset where reading resumes
  bool continues_line = false;    // the chunk at `offset` continues a line
  bool starts_in_token = false;   // ...and starts inside a cut token
  std::vector<uint32_t> context;  // last ≤ window in-vocabulary ids of the open document
  uint64_t tokens = 0;            // tokens of this input counted so far
  // An input that grew since it was ingested: the fingerprint of its earlier
  // record, which its finished record supersedes; empty otherwise.
  std::string replaces;
};

// What a committed batch changes besides its pairs, atomically with them.
struct BatchMetadata {
  // The input being ingested after the batch, or null when the batch ended
  // at an input's end (the progress record is deleted).
  const IngestProgress* progress = nullptr;
  std::vector<InputRecord> finished;  // inputs read to their end in the batch
  // Fingerprints of input records that `finished` supersede (an input that
  // grew since it was ingested): deleted.
  std::vector<std::string> replaced;
  // Occurrences the batch counted of word id i (empty: none). A fixed
  // vocabulary keeps the counts it was made with (its ranks, and a
  // subsampled store's keep probabilities, depend on them) and ignores these.
  std::vector<uint64_t> word_counts;
};

// A store's non-zero pairs and the sum of their values, which every commit
// keeps in a record (docs/formats.md) so that they are read, not counted.
struct PairTotals {
  // Exact when pairs_exact; otherwise an upper bound. A batch's pairs are
  // known to be new only when the store holds no pair block in the key
  // ranges of its files (a store's first batch, or rows no batch touched
  // before); telling its new pairs from the old ones elsewhere would cost a
  // read of every block it touches.
  uint64_t pairs = 0;
  bool pairs_exact = true;
  __uint128_t units = 0;  // the sum of every value, in fixed-point units: always exact
};

class Store {
 public:
  virtual ~Store() = default;

  // Opens the store in `dir`. With `create`, a missing or empty directory
  // becomes a new, uninitialized store. Errors: NotFound (no store there and
  // !create), Corruption (not a store, or unreadable metadata), Busy (locked
  // by another process), InvalidArgument (format version newer than this
  // build's).
  static Status Open(const std::string& dir, size_t memory_bytes, bool create,
                     std::unique_ptr<Store>* store);
  // Opens an existing store to read it (stats, dump, verify, train's block
  // stream) without writing to it, so it works on a full disk. The store is
  // locked as by Open(); NewBatch/CommitBatch/Initialize fail.
  static Status OpenForReading(const std::string& dir, size_t memory_bytes,
                               std::unique_ptr<Store>* store);

  // True once Initialize() has written config and vocabulary.
  virtual bool initialized() const = 0;
  // REQUIRES: !initialized(). Writes config and vocabulary (ids in order)
  // atomically.
  virtual Status Initialize(const StoreConfig& config, std::vector<VocabEntry> vocab) = 0;
  // REQUIRES: initialized().
  virtual const StoreConfig& config() const = 0;
  // Every word by id (not in rank order; counts may be 0).
  virtual const std::vector<VocabEntry>& vocab() const = 0;
  // Appends `words` (none in vocab() yet) with ids from vocab().size() on and
  // count 0, in one synced write, so the batches that count them can name
  // them. REQUIRES: initialized(); !config().fixed_vocabulary.
  virtual Status AddWords(const std::vector<std::string>& words) = 0;
  // The words the last Initialize() or non-empty AddWords() brought.
  virtual uint64_t last_added_words() const = 0;
  // Records that the vocabulary holds every word of the inputs named by
  // `keys` (the ingest's names: content fingerprint and reading options),
  // replacing the last such record (one synced write), so that an ingest
  // resumed before they are counted need not read them for their words
  // again. A growing vocabulary only gains words, so the record stays true.
  // REQUIRES: initialized(); !config().fixed_vocabulary.
  virtual Status SetWordsHeld(const std::vector<std::string>& keys) = 0;
  // The last SetWordsHeld()'s keys; *recorded is false when the store has
  // no such record (made before it, or by a distributed ingest).
  virtual Status GetWordsHeld(std::vector<std::string>* keys, bool* recorded) = 0;

  virtual Status ListInputs(std::vector<InputRecord>* inputs) = 0;
  virtual Status FindInput(const std::string& fingerprint, InputRecord* record, bool* found) = 0;
  virtual Status GetProgress(IngestProgress* progress, bool* found) = 0;

  // Collects one batch of pairs in ranges(): consecutive key ranges, each
  // written to its own temporary SST file under the store directory, so
  // that threads can write a batch together. Commit it with CommitBatch().
  //
  // Thread-safety: Add() calls for different ranges, and WriteMetadata(),
  // may run concurrently; one range is written by one thread at a time.
  class Batch {
   public:
    virtual ~Batch() = default;
    virtual size_t ranges() const = 0;
    // REQUIRES: range < ranges(); (row, col) strictly increasing across the
    // calls for one range; every pair of a range precedes, in (row, col)
    // order, every pair of the ranges after it, and no pair block
    // (pair_block.h: PairBlockOf) has pairs in two ranges (CommitBatch
    // checks); value > 0.
    virtual Status Add(size_t range, uint32_t row, uint32_t col, uint64_t value) = 0;
    // Completes range `range`'s file (synced to disk), so that CommitBatch
    // has less to do on one thread; no Add() for the range after it.
    // Optional: CommitBatch finishes the ranges that were not.
    virtual Status FinishRange(size_t range) = 0;
    // Writes `metadata`'s changes (BatchMetadata) to the batch's own file
    // now, so that a caller can write them on one thread while others Add()
    // pairs (ingest's merge runs it beside its key ranges) instead of in
    // CommitBatch, alone: a growing store rewrites the record of every word
    // the batch counted. Optional, once. REQUIRES: CommitBatch() gets the
    // same metadata, and the store's vocabulary has not changed since (no
    // other batch committed, no words added): it checks both, and refuses
    // with InvalidArgument. While it runs, no other call on the Store.
    virtual Status WriteMetadata(const BatchMetadata& metadata) = 0;
  };
  // REQUIRES: ranges >= 1.
  virtual Status NewBatch(size_t ranges, std::unique_ptr<Batch>* batch) = 0;
  // Atomically adds the batch's pairs to the store with `metadata`'s changes:
  // the progress record, input records, word counts.
  virtual Status CommitBatch(std::unique_ptr<Batch> batch, const BatchMetadata& metadata) = 0;

  // A batch written by another process than the store's owner (a rank of
  // a distributed ingest, src/cooccur/distributed/): its ranges go to SST files
  // `path_prefix`-<range>.sst in the store's format, which the owner commits
  // with CommitBatchFiles(). Put them on the store's file system (the commit
  // links them). Add() and FinishRange() as for any batch; ids below
  // `vocab_size`, in blocks of the store's `layout` (StoreConfig::block_layout).
  static Status NewDetachedBatch(const std::string& path_prefix, size_t vocab_size,
                                 PairBlockLayout layout, size_t ranges,
                                 std::unique_ptr<Batch>* batch);
  // Completes a detached batch: *files gets the files that hold pairs, in
  // range order, which the batch then no longer removes.
  static Status FinishDetachedBatch(std::unique_ptr<Batch> batch, std::vector<std::string>* files);
  // Atomically adds the pairs of detached batches' `files` (whose key ranges
  // must not overlap) with `metadata`'s changes. The files are moved into
  // the store.
  virtual Status CommitBatchFiles(const std::vector<std::string>& files,
                                  const BatchMetadata& metadata) = 0;

  using PairVisitor = std::function<Status(uint32_t row, uint32_t col, uint64_t value)>;

  // Calls f for every non-zero pair of the rows in [row_begin, row_end), in
  // (row, col) order, with the summed value; stops at the first non-OK
  // status f returns. Only those rows are read.
  virtual Status ForEachPairInRows(uint32_t row_begin, uint32_t row_end, const PairVisitor& f) = 0;

  // Calls f for every non-zero pair of each of `rows`, row after row in the
  // order given (columns ascending within a row), with one iterator: for
  // reading rows in an order other than the store's (RankedVocab's ranks).
  virtual Status ForEachPairOfRows(const std::vector<uint32_t>& rows, const PairVisitor& f) = 0;

  // ForEachPairInRows over the rows below row_end.
  Status ForEachPairBelow(uint32_t row_end, const PairVisitor& f) {
    return ForEachPairInRows(0, row_end, f);
  }

  // ForEachPairBelow over every row.
  Status ForEachPair(const PairVisitor& f) { return ForEachPairBelow(UINT32_MAX, f); }

  // The totals the store's record holds. *known is false when it has none:
  // a store of a build before the record, not yet opened for writing by
  // this one, or a commit of files that carried no totals (the next Open()
  // for writing counts the pairs once and writes it). Corruption: a record
  // that does not decode.
  virtual Status GetPairTotals(PairTotals* totals, bool* known) = 0;
  // Counts the non-zero pairs and the sum of their values by a scan of
  // every pair (exact: totals->pairs_exact), on `threads` threads that each
  // read a key range of about equal bytes on disk.
  virtual Status CountPairs(int threads, PairTotals* totals) = 0;

  // Bytes of the store's own files on disk: the counts and records, which
  // RocksDB keeps directly in the directory. Subfolders hold data derived
  // from the store by later stages (train's block stream) and are not counted.
  virtual uint64_t SizeOnDisk() = 0;

  // Reads every table file and checks its block checksums (RocksDB's
  // VerifyChecksum).
  virtual Status VerifyChecksums() = 0;
};

}  // namespace streamglove

#endif  // STREAMGLOVE_STORE_STORE_H_
