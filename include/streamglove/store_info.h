// Reading a store back: summary statistics and dumps of its counts.
#ifndef STREAMGLOVE_STORE_INFO_H_
#define STREAMGLOVE_STORE_INFO_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "streamglove/options.h"
#include "streamglove/status.h"

namespace streamglove {

// The memory budget `stats`, `dump` and `verify` read a store with (its
// block cache, at most 128 MiB of it, and RocksDB's own).
inline constexpr size_t kStoreReadMemoryBytes = size_t{256} << 20;

struct StoreStats {
  uint32_t format_version = 0;
  uint32_t window = 0;
  bool symmetric = true;
  DistanceWeighting weighting = DistanceWeighting::kHarmonic;
  double subsample = 0;  // subsampled before windowing with this t; 0: not
  uint64_t scale = 1;
  bool fixed_vocabulary = false;  // out-of-vocabulary tokens dropped; otherwise the store grows
  std::string phrases;            // the fingerprint of the phrase list it joined; empty: none
  uint64_t words = 0;             // distinct words counted (count > 0)
  uint64_t last_added_words = 0;  // words the last ingest that brought any added
  uint64_t min_count = 1;         // the store's default cut for readers
  uint64_t max_vocab = 0;
  uint64_t vocab_size = 0;  // words in that cut
  uint64_t inputs = 0;      // completely ingested inputs
  std::vector<std::string> input_paths;
  bool partly_ingested = false;  // an input was interrupted mid-way
  uint64_t tokens = 0;           // tokens read from ingested inputs
  uint64_t nonzero_pairs = 0;
  bool nonzero_pairs_exact = true;  // false: nonzero_pairs is an upper bound
  double sum_of_counts = 0;         // exact sum in fixed point, then divided once
  uint64_t size_on_disk = 0;        // the counts and records (RocksDB's files)
  uint64_t derived_bytes = 0;  // subfolders: data derived from the store (train's block stream)
};

// How ComputeStoreStats gets the non-zero pairs.
enum class PairCount {
  // From the record every commit keeps (docs/formats.md), in milliseconds:
  // exact, or an upper bound where a batch met pairs of earlier ones. A
  // store without the record is scanned.
  kRecorded,
  // Exact: scanned where the record holds an upper bound.
  kExact,
};

struct StatsOptions {
  PairCount pairs = PairCount::kRecorded;
  int threads = 0;  // a scan's threads (0: every core)
};

// Opens the store read-only in spirit (it takes the store's lock) and reads
// its records; the pairs as options.pairs says. The sum of counts is exact
// either way. REQUIRES: ValidateStatsOptions(options).ok().
Status ComputeStoreStats(const std::string& dir, size_t memory_bytes, StoreStats* stats,
                         const StatsOptions& options = StatsOptions());
Status ValidateStatsOptions(const StatsOptions& options);

struct VerifyReport {
  std::vector<std::string> checks;    // what was verified, with figures
  std::vector<std::string> problems;  // each broken invariant, located
};

// Checks a store's invariants: it opens (format version, config, vocabulary
// readable); the vocabulary is unique words; a growing store's counts sum to
// its inputs' tokens, and every word in a pair has been counted; every table file's checksums;
// every pair decodes with both ids in the vocabulary, in (row, col) order, with a positive value; a
// symmetric store holds X_ij = X_ji (compared by an order-free checksum of both triangles); input
// records are unique and a pending partial input is not also recorded as finished. A store that
// cannot be opened is an error status; broken invariants are listed in report->problems.
Status VerifyStore(const std::string& dir, size_t memory_bytes, VerifyReport* report);

enum class DumpFormat {
  kText,   // "word1 word2 count" lines, count as the shortest exact-enough decimal
  kGlove,  // Stanford GloVe's cooccurrence.bin: {int32 word1, int32 word2, double val}, 1-based ids
  kVocab,  // the store's vocabulary as Stanford's vocab.txt (streamglove/vocab_file.h); no pairs
};

// Writes every non-zero pair of two words in the vocabulary cut (words seen
// at least `min_count` times, at most `max_vocab` of them; min_count 0: the
// store's own cut), in (row rank, col rank) order, to `out_path` ("-":
// stdout), or with kVocab the cut's words. Ranks (and ids in kGlove) are
// positions in the cut vocabulary (src/store/ranked_vocab.h), so the dump
// of a store depends only on its counts, not on the order of its ingests.
Status DumpStore(const std::string& dir, size_t memory_bytes, DumpFormat format, uint64_t min_count,
                 uint64_t max_vocab, const std::string& out_path);

}  // namespace streamglove

#endif  // STREAMGLOVE_STORE_INFO_H_
