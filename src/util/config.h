// Internal tunables, in one place. Options users set live in
// include/streamglove/options.h; these are engineering constants.
#ifndef STREAMGLOVE_UTIL_CONFIG_H_
#define STREAMGLOVE_UTIL_CONFIG_H_

#include <cstddef>

namespace streamglove::config {

// Resident memory of the process before it holds any data: code, shared
// libraries, thread stacks, allocator slack. Measured: `vocab` on a 6-byte
// file peaks at 17.6 MiB (1 thread) and 18.0 MiB (2), of which one 4 MiB chunk
// buffer; so about 14 MiB, kept conservative so --memory holds.
inline constexpr size_t kProcessBaselineBytes = size_t{20} << 20;

// Chunks in flight per worker thread: enough to keep workers busy while the
// reader fills the next, few enough to bound memory.
inline constexpr size_t kChunksInFlightPerThread = 2;

// A vocabulary pass's chunk is sized to the memory budget: budget /
// kChunkBudgetDivisor, but no smaller than kMinChunkBytes.
inline constexpr size_t kChunkBudgetDivisor = 64;
inline constexpr size_t kMinChunkBytes = size_t{256} << 10;
// Ingest's chunks take a smaller share (the store, the dense regions and the
// pair buffers want the rest) and are capped: larger ones only delay the
// pipeline's start.
inline constexpr size_t kIngestChunkBudgetDivisor = 128;
inline constexpr size_t kMaxIngestChunkBytes = size_t{4} << 20;
// Ingest refuses a budget that leaves the counting buffers less than this.
inline constexpr size_t kMinIngestBufferBytes = size_t{16} << 20;

// A vocabulary table never spills below this size.
inline constexpr size_t kMinTableBytes = size_t{1} << 20;

// Runs merged at once by one thread, in the vocabulary pass and in an ingest
// commit: each holds a read buffer of kRunReadBufferBytes. An ingest commit
// merges on every thread at once, so it divides kMergeReserveBytes among them
// (and so opens fewer runs per thread, down to kMinMergeFanIn).
inline constexpr size_t kMergeFanIn = 128;
inline constexpr size_t kMinMergeFanIn = 4;
inline constexpr size_t kRunReadBufferBytes = size_t{64} << 10;

// One message of the distributed ingest's stream exchange (src/cooccur_mpi/):
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
// a range that merges slowly does not hold up the rest...
inline constexpr size_t kCommitRangesPerThread = 2;
// ...but no range smaller than this many records: each is one more SST file.
inline constexpr size_t kMinCommitRangeRecords = size_t{1} << 14;

// The largest dense co-occurrence region of one counting worker. Larger
// regions leave fewer pairs to sort, up to a few hundred MiB, past which
// nearly every add misses the caches; 256 MiB counted faster still on a
// slice of wiki100M but was not tried on the full corpus, and --memory 512M
// gives each worker about 95 MiB anyway. Measured: docs/benchmarks.md, "The
// measurements behind the counting constants".
inline constexpr size_t kMaxDenseRegionBytes = size_t{128} << 20;

// A counting worker's pair buffer (its records and the radix sort's
// scratch) is its share of the budget, at most kMaxPairBufferBytes: past
// that a larger buffer spills fewer runs but counts slower (each combine
// merges all it holds; the kernel zeroes every fresh page), and one that
// starts small and grows was slower than this size from the start.
// Measured: docs/benchmarks.md, "The measurements behind the counting
// constants".
inline constexpr size_t kMaxPairBufferBytes = size_t{256} << 20;

// The store (RocksDB). Its block cache is memory_bytes / kStoreCacheDivisor,
// clamped to [kStoreMinCacheBytes, kStoreMaxCacheBytes]; index blocks are
// charged to it. Memtables add kStoreWriteBufferBytes x kStoreMaxWriteBuffers.
inline constexpr size_t kStoreCacheDivisor = 16;
inline constexpr size_t kStoreMinCacheBytes = size_t{4} << 20;
inline constexpr size_t kStoreMaxCacheBytes = size_t{128} << 20;
inline constexpr size_t kStoreWriteBufferBytes = size_t{4} << 20;
inline constexpr int kStoreMaxWriteBuffers = 2;
// SST data block size: larger blocks mean smaller indexes (less memory per
// open file) and better compression; scans read whole blocks anyway.
inline constexpr size_t kStoreBlockBytes = size_t{16} << 10;
inline constexpr int kStoreMaxOpenFiles = 256;
inline constexpr int kStoreBackgroundJobs = 2;
inline constexpr size_t kStoreInfoLogFiles = 2;
// RocksDB never stalls IngestExternalFile for too many L0 files (it stalls
// only regular writes), and every batch overlaps the last, so lands in L0.
// CommitBatch waits for compactions while L0 holds this many batches or more
// (counted as files / the batch's files: a batch is one file per key range),
// which bounds the pinned L0 index blocks and the merge fan-in of reads.
inline constexpr size_t kStoreMaxL0BatchesAtIngest = 12;
inline constexpr int kStoreL0PollMillis = 50;
inline constexpr int kStoreMaxL0WaitSeconds = 300;  // then ingest anyway

// What ingest reserves for an open store beyond its block cache: memtables
// plus table readers and RocksDB's own slack.
inline constexpr size_t kStoreFixedBytes = size_t{16} << 20;

// The block cache of a store opened with `memory_bytes`.
inline constexpr size_t StoreCacheBytes(size_t memory_bytes) {
  const size_t cache = memory_bytes / kStoreCacheDivisor;
  return cache < kStoreMinCacheBytes   ? kStoreMinCacheBytes
         : cache > kStoreMaxCacheBytes ? kStoreMaxCacheBytes
                                       : cache;
}

// All the RocksDB memory such a store may use.
inline constexpr size_t StoreMemoryBytes(size_t memory_bytes) {
  return StoreCacheBytes(memory_bytes) + kStoreFixedBytes;
}

// Training: --memory holds the parameters first; of what they leave, each
// block file is 1 / kTrainBlockShareDivisor (two blocks are in memory at
// once, as 16-byte training records: 4/3 of their 12-byte file size, so 2/3
// of what is left), within [kMinTrainBlockBytes, kMaxTrainBlockBytes].
inline constexpr size_t kTrainBlockShareDivisor = 4;
inline constexpr size_t kMinTrainBlockBytes = size_t{8} << 20;
inline constexpr size_t kMaxTrainBlockBytes = size_t{256} << 20;
// The least the parameters must leave: what gives blocks of the smallest size.
inline constexpr size_t kMinTrainBlockMemory = kTrainBlockShareDivisor * kMinTrainBlockBytes;

// stats, dump and verify read a store through a cache of this budget.
inline constexpr size_t kStoreReadMemoryBytes = size_t{256} << 20;

// Progress lines are redrawn at most this often.
inline constexpr double kProgressIntervalSeconds = 0.25;

}  // namespace streamglove::config

#endif  // STREAMGLOVE_UTIL_CONFIG_H_
