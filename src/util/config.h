// Internal tunables, in one place. Options users set live in
// include/streamglove/options.h; these are engineering constants.
#ifndef STREAMGLOVE_UTIL_CONFIG_H_
#define STREAMGLOVE_UTIL_CONFIG_H_

#include <cstddef>

namespace streamglove::config {

// Resident memory of the process before it holds any data: code, shared
// libraries, thread stacks, allocator slack. Measured at about 12 MiB with two
// threads; kept conservative so --memory holds.
inline constexpr size_t kProcessBaselineBytes = size_t{20} << 20;

// Chunks in flight per worker thread: enough to keep workers busy while the
// reader fills the next, few enough to bound memory.
inline constexpr size_t kChunksInFlightPerThread = 2;

// A chunk is sized to the memory budget: budget / kChunkBudgetDivisor, but
// no smaller than kMinChunkBytes.
inline constexpr size_t kChunkBudgetDivisor = 64;
inline constexpr size_t kMinChunkBytes = size_t{256} << 10;

// A vocabulary table never spills below this size.
inline constexpr size_t kMinTableBytes = size_t{1} << 20;

// Runs merged at once, in the vocabulary pass and in an ingest commit (each
// holds a 64 KiB read buffer: 8 MiB at most, within kMergeReserveBytes).
inline constexpr size_t kMergeFanIn = 128;

// Memory kept for merging a batch's sorted runs and writing its SST file.
inline constexpr size_t kMergeReserveBytes = size_t{24} << 20;

// The largest dense co-occurrence region of one counting worker. Measured on
// wiki100M (window 15, 2 threads): 128 MiB counts faster than both 32 MiB
// (more pairs left to sort) and 512 MiB (cache and TLB misses on every add).
inline constexpr size_t kMaxDenseRegionBytes = size_t{128} << 20;

// Progress lines are redrawn at most this often.
inline constexpr double kProgressIntervalSeconds = 0.25;

}  // namespace streamglove::config

#endif  // STREAMGLOVE_UTIL_CONFIG_H_
