// Training's tunables: engineering constants.
#ifndef STREAMGLOVE_TRAIN_TRAIN_TUNING_H_
#define STREAMGLOVE_TRAIN_TRAIN_TUNING_H_

#include <cstddef>

namespace streamglove::config {

// Training: --memory holds the parameters first; of what they and the
// process's baseline (kProcessBaselineBytes, util/config.h) leave, each
// block file is 1 / kTrainBlockShareDivisor (two blocks are in memory at
// once, as 16-byte training records: 4/3 of their 12-byte file size, so 2/3
// of what is left), within [kMinTrainBlockBytes, kMaxTrainBlockBytes].
inline constexpr size_t kTrainBlockShareDivisor = 4;
inline constexpr size_t kMinTrainBlockBytes = size_t{8} << 20;
inline constexpr size_t kMaxTrainBlockBytes = size_t{256} << 20;
// The least the parameters must leave: what gives blocks of the smallest
// size. The baseline is not added to it: the third of it that is not blocks
// holds about half the baseline, so a plan at this edge may exceed --memory
// by a few MiB (docs/reliability.md); requiring the whole baseline would
// refuse small runs that train today.
inline constexpr size_t kMinTrainBlockMemory = kTrainBlockShareDivisor * kMinTrainBlockBytes;
// Training's allocations of this size or more are mapped on their own and
// returned when freed (MapLargeAllocations): the blocks' part buffers, a
// few MiB each, would otherwise stay resident in malloc's arenas once freed
// (measured at --memory 64M, docs/reliability.md: 80 MiB without, 56 with).
inline constexpr size_t kTrainMappedAllocationBytes = size_t{1} << 20;

}  // namespace streamglove::config

#endif  // STREAMGLOVE_TRAIN_TRAIN_TUNING_H_
