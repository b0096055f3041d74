// The CUDA plugin's kernels, compiled to PTX by clang without CUDA's headers
// or libraries (src/train/device/cuda/CMakeLists.txt) and loaded by the
// driver at run time (cuda_plugin.cc). The arithmetic is
// train/pair_update.h's, shared with the CPU's tests; this file only spreads
// pairs over warps.
//
// One warp per pair: a block's warps, and the grid's blocks, take the
// submission's pairs in turn (warp w takes pairs w, w + warps, ...), updating
// the parameters without locks (Hogwild, as the CPU's threads). A grid of
// one warp takes every pair in order: the `sequential` mode, equal to one
// CPU thread to float rounding.

#include <__clang_cuda_builtin_vars.h>

#include "train/pair_permutation.h"
#include "train/pair_update.h"
#include "train/device/cuda/kernel_args.h"
#include "util/alias_table.h"
#include "util/split_mix.h"

#define SG_GLOBAL __attribute__((global))
#define SG_DEVICE __attribute__((device))

namespace streamglove {
namespace {

// The lanes of a warp (train/pair_update.h's Lanes).
struct WarpLanes {
  static constexpr uint32_t kCount = kKernelLanes;
  SG_DEVICE uint32_t lane() const { return threadIdx.x % kCount; }
  // A butterfly: every lane adds the same values in mirrored order, so
  // every lane gets the same bits.
  SG_DEVICE float Sum(float x) const {
    for (int offset = kCount / 2; offset > 0; offset /= 2)
      x += __nvvm_shfl_sync_bfly_f32(0xffffffffu, x, offset, kCount - 1);
    return x;
  }
};

// Calls train(range, i, pair) for each pair this warp takes, in order: a
// resident submission's pairs through the epoch's order.
template <class Train>
SG_DEVICE void ForEachPairOfWarp(const KernelPairs& in, const Train& train) {
  const uint64_t threads = uint64_t{gridDim.x} * blockDim.x;
  const uint64_t warp = (uint64_t{blockIdx.x} * blockDim.x + threadIdx.x) / kKernelLanes;
  const PairPermutation order(in.order_size, in.order_seed);
  uint32_t r = 0;
  for (uint64_t t = warp; t < in.total; t += threads / kKernelLanes) {
    while (r + 1 < in.range_count && in.ranges[r + 1].first <= t) ++r;
    const KernelRange& range = in.ranges[r];
    const uint64_t i = t - range.first, at = range.slot_begin + i;
    train(range, i, in.pairs[in.order_size > 0 ? order.Of(at) : at]);
  }
}

// Adds a warp's totals to the submission's.
SG_DEVICE void AddTotals(const KernelPairs& in, double loss, unsigned long long skipped) {
  if (WarpLanes().lane() != 0) return;
  __nvvm_atom_add_gen_d(in.loss, loss);
  __nvvm_atom_add_gen_ll(reinterpret_cast<long long*>(in.skipped), static_cast<long long>(skipped));
}

template <uint32_t kPerLane>
SG_DEVICE void TrainGlove(const GloveKernelArgs& a) {
  double cost = 0;
  unsigned long long skipped = 0;
  ForEachPairOfWarp(a.in, [&](const KernelRange& range, uint64_t i, const sg_device_pair& p) {
    const uint64_t scale_at = i - i % kGloveScaleEvery;
    const float scale = GloveStepScale(
        a.step_scale, a.decay_fraction,
        RangeProgress(range.progress_begin, range.progress_end, range.count, scale_at));
    const size_t w = size_t{p.row} * a.stride, c = size_t{p.col} * a.stride;
    const GloveRows rows{a.word + w, a.context + c, a.word_gradsq + w, a.context_gradsq + c};
    if (!GloveUpdateOnLanes<WarpLanes, kPerLane>(WarpLanes(), a.dim, rows, p.log_count, p.weight,
                                                 a.eta, a.grad_clip, scale, &cost)) {
      ++skipped;
    }
  });
  AddTotals(a.in, cost, skipped);
}

template <uint32_t kPerLane>
SG_DEVICE void TrainSgns(const SgnsKernelArgs& a) {
  double loss = 0;
  ForEachPairOfWarp(a.in, [&](const KernelRange& range, uint64_t i, const sg_device_pair& p) {
    const float lr = SgnsLearningRate(
        a.eta, RangeProgress(range.progress_begin, range.progress_end, range.count, i));
    // Draw k of pair i is draw i * negatives + k of the range's stream, as
    // the CPU draws them one pair after another.
    const auto noise_word = [&](uint32_t k) {
      const uint64_t bits = SplitMix64::Draw(range.seed, i * a.negatives + k);
      return AliasTable::Pick(bits, a.vocab, a.noise_threshold, a.noise_alias);
    };
    loss += SgnsUpdateOnLanes<WarpLanes, kPerLane>(WarpLanes(), a.dim,
                                                   a.word + size_t{p.row} * a.stride, a.context,
                                                   a.stride, p.col, a.negatives, noise_word, lr);
  });
  AddTotals(a.in, loss, 0);
}

}  // namespace
}  // namespace streamglove

#define SG_KERNELS(P)                                                                     \
  extern "C" SG_GLOBAL void sg_glove_##P(streamglove::GloveKernelArgs a) {                \
    streamglove::TrainGlove<P>(a);                                                        \
  }                                                                                       \
  extern "C" SG_GLOBAL void sg_sgns_##P(streamglove::SgnsKernelArgs a) {                  \
    streamglove::TrainSgns<P>(a);                                                         \
  }

SG_KERNELS(1)
SG_KERNELS(2)
SG_KERNELS(4)
SG_KERNELS(8)
SG_KERNELS(16)
SG_KERNELS(32)
SG_KERNELS(64)
SG_KERNELS(128)
