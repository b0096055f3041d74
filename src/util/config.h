// The tunables more than one stage shares: the process's baseline, reading
// chunks, the sorted runs' merge, the progress line. Each stage's own are
// beside it (cooccur/cooccur_tuning.h, store/store_tuning.h,
// train/train_tuning.h). Options users set live in
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

// A vocabulary table never spills below this size.
inline constexpr size_t kMinTableBytes = size_t{1} << 20;

// Runs merged at once by one thread, in the vocabulary pass and in an ingest
// commit: each holds a read buffer of kRunReadBufferBytes. An ingest commit
// merges on every thread at once, so it divides cooccur's kMergeReserveBytes
// among them (and so opens fewer runs per thread, down to kMinMergeFanIn).
inline constexpr size_t kMergeFanIn = 128;
inline constexpr size_t kRunReadBufferBytes = size_t{64} << 10;

// Progress lines are redrawn at most this often.
inline constexpr double kProgressIntervalSeconds = 0.25;

}  // namespace streamglove::config

#endif  // STREAMGLOVE_UTIL_CONFIG_H_
