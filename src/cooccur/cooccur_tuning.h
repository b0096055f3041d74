// The ingest's tunables (engineering constants; the measurements behind
// them are in docs/benchmarks.md, "The measurements behind the counting
// constants"). The ones it shares with the vocabulary pass are in
// util/config.h.
#ifndef STREAMGLOVE_COOCCUR_COOCCUR_TUNING_H_
#define STREAMGLOVE_COOCCUR_COOCCUR_TUNING_H_

#include <algorithm>
#include <cstddef>

namespace streamglove::config {

// Ingest's chunks take a smaller share of the budget than a vocabulary
// pass's (the store, the dense region and the pair buffers want the rest)
// and are capped: larger ones only delay the pipeline's start.
inline constexpr size_t kIngestChunkBudgetDivisor = 128;
inline constexpr size_t kMaxIngestChunkBytes = size_t{4} << 20;
// Ingest refuses a budget that leaves the counting buffers less than this.
inline constexpr size_t kMinIngestBufferBytes = size_t{16} << 20;

// A commit merges on every thread at once, so it divides kMergeReserveBytes
// among them and opens fewer runs per thread (util/config.h's
// kMergeFanIn), down to this many.
inline constexpr size_t kMinMergeFanIn = 4;

// One message of the distributed ingest's stream exchange (src/cooccur/distributed/):
// large enough that MPI's per-message cost vanishes against the bytes; a
// rank holds three (two outgoing, one incoming).
inline constexpr size_t kExchangeChunkBytes = size_t{1} << 20;

// Memory kept for merging a batch's sorted runs, all threads together.
inline constexpr size_t kMergeReserveBytes = size_t{24} << 20;
// Memory of one SST file being written by a commit thread: RocksDB's data
// and index block builders and its compression buffer. An estimate, not a
// measurement: 16 KiB blocks, an index entry of a few tens of bytes a block
// (a few MiB for a 1 GiB file).
inline constexpr size_t kCommitWriterBytes = size_t{4} << 20;
// A commit splits its key space into about this many ranges per thread
// (merged and written as one SST file each, by whichever thread is free), so
// a range that merges slowly does not hold up the rest, and into at least
// kMinCommitRanges: at few threads the last range's merge, alone on its
// thread, was the largest serial stretch of an ingest. wiki100M (window 15)
// at --threads 2: 4.58 s with 16 ranges against 4.79 s with 4 (medians of 8
// whole processes in turn). At 16 threads 2 a thread keep a batch's files
// (and the table readers of the L0 batches kStoreMaxL0BatchesAtIngest
// allows) few...
inline constexpr size_t kCommitRangesPerThread = 2;
inline constexpr size_t kMinCommitRanges = 16;
// ...but no range smaller than this many records: each is one more SST file.
inline constexpr size_t kMinCommitRangeRecords = size_t{1} << 14;
// The ranges a commit on `threads` threads aims for.
inline constexpr size_t CommitRanges(size_t threads) {
  return std::max(threads * kCommitRangesPerThread, kMinCommitRanges);
}

// The largest dense co-occurrence region, which the counting workers share
// (its cells and every worker's deferred adds: DenseRegion). Larger regions
// leave fewer pairs to sort. Since adds are deferred a region's size costs
// the adds little: wiki100M's counting at --threads 1 (window 15) took 6.6 s with 128 MiB,
// 6.0 s with 256 and 6.0 s with 512 (medians of 3; the commit that set this
// has the runs). --memory 512M leaves it about 190 MiB anyway (by the plan,
// wiki100M at --threads 2: it gave each of 2 workers 95 MiB).
inline constexpr size_t kMaxDenseRegionBytes = size_t{256} << 20;

// A counting worker's pair buffer (its records and the radix sort's
// scratch) is its share of the budget, at most kMaxPairBufferBytes: past
// that a larger buffer spills fewer runs but counts slower (each combine
// merges all it holds; the kernel zeroes every fresh page), and one that
// starts small and grows was slower than this size from the start.
// Measured: docs/benchmarks.md, "The measurements behind the counting
// constants".
inline constexpr size_t kMaxPairBufferBytes = size_t{256} << 20;

// Counting's tail words (PairAccumulator): those the store has counted fewer
// than this many times (a new store: in its vocabulary pass). Their pairs
// get a buffer of 1/kTailBufferShare of a worker's buffer memory, and the
// dense region covers only the other words' ids. On wiki100M (window 15,
// --memory 1G, 2 threads) this brought a growing store's ingest from 1.27x to
// 1.15-1.22x the time of --fixed-vocab's; a tail buffer of a quarter measured
// no better (1.21x): docs/benchmarks.md, "Growing stores and additions".
inline constexpr uint64_t kHeadMinCount = 5;
inline constexpr size_t kTailBufferShare = 8;

// A new growing store whose cut leaves out at least this share of the
// tokens says so in one line (BelowCutNotice): it counts the pairs of the
// words below the cut too, which costs time and disk that --fixed-vocab does
// not spend. Measured at two points (docs/benchmarks.md, "Growing stores and
// additions"): wiki100M's cut leaves out 1.4% of the tokens, for 1.12x the
// time and 1.20x the disk; a generated corpus's --max-vocab 100000 leaves out
// 15.1%, for 2.0x and 2.6x. 5% is a choice between them, where a line
// through the two points predicts about 1.35x the time (not measured).
inline constexpr double kBelowCutNoticeShare = 0.05;

}  // namespace streamglove::config

#endif  // STREAMGLOVE_COOCCUR_COOCCUR_TUNING_H_
