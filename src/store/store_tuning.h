// The store's tunables (RocksDB's memory and files): engineering constants.
#ifndef STREAMGLOVE_STORE_STORE_TUNING_H_
#define STREAMGLOVE_STORE_STORE_TUNING_H_

#include <cstddef>

namespace streamglove::config {

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

}  // namespace streamglove::config

#endif  // STREAMGLOVE_STORE_STORE_TUNING_H_
