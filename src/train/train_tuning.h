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
// holds about half the baseline, so a plan at this edge exceeds --memory by
// the rest and the allocator's slack (measured: 77 MiB at --memory 64M,
// docs/reliability.md); requiring the whole baseline would refuse small
// runs that train today.
inline constexpr size_t kMinTrainBlockMemory = kTrainBlockShareDivisor * kMinTrainBlockBytes;

}  // namespace streamglove::config

#endif  // STREAMGLOVE_TRAIN_TRAIN_TUNING_H_
