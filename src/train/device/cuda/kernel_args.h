// What the CUDA plugin's host code (cuda_plugin.cc, compiled by the host
// compiler) passes to its kernels (kernels.cu, compiled to PTX by clang):
// plain structs of fixed-size fields, laid out alike by both compilers, each
// passed by value as a kernel's one parameter.
#ifndef STREAMGLOVE_TRAIN_DEVICE_CUDA_KERNEL_ARGS_H_
#define STREAMGLOVE_TRAIN_DEVICE_CUDA_KERNEL_ARGS_H_

#include <stdint.h>

#include "train/device/device_api.h"

namespace streamglove {

// A submitted range as the kernels read it: the ranges of a submission are
// concatenated, and pair t of the concatenation (first <= t < first +
// count) is pair t - first of this range, at slot_begin + t - first in the
// slot.
struct KernelRange {
  uint64_t slot_begin, first, count;
  double progress_begin, progress_end;
  uint64_t seed;
};

// A submission's pairs and what the kernels add their totals to. With
// order_size > 0, `pairs` are the resident pairs and a range's slot
// positions are positions of their order: position t trains pair
// PairPermutation(order_size, order_seed).Of(t).
struct KernelPairs {
  const sg_device_pair* pairs;
  const KernelRange* ranges;
  uint64_t total;  // pairs of all ranges
  uint32_t range_count;
  uint32_t unused;
  double* loss;
  unsigned long long* skipped;
  uint64_t order_size;
  uint64_t order_seed;
};

struct GloveKernelArgs {
  KernelPairs in;
  float* word;
  float* context;
  float* word_gradsq;
  float* context_gradsq;
  uint32_t dim, stride;
  float eta, grad_clip;
  double step_scale, decay_fraction;
};

struct SgnsKernelArgs {
  KernelPairs in;
  float* word;
  float* context;
  const uint32_t* noise_threshold;
  const uint32_t* noise_alias;
  uint32_t dim, stride;
  uint32_t vocab, negatives;
  float eta;
  uint32_t unused;
};

// The kernels come in one version per kPerLane (components per lane, dim
// <= 32 kPerLane): "sg_glove_<kPerLane>" and "sg_sgns_<kPerLane>".
inline constexpr uint32_t kKernelLanes = 32;
inline constexpr uint32_t kKernelPerLane[] = {1, 2, 4, 8, 16, 32, 64, 128};

}  // namespace streamglove

#endif  // STREAMGLOVE_TRAIN_DEVICE_CUDA_KERNEL_ARGS_H_
