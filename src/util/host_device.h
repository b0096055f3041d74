// SG_HOST_DEVICE marks a function that is compiled for the CPU and, where
// clang compiles the CUDA plugin's kernels (src/train/device/cuda/), for
// the GPU as well: the per-pair arithmetic is written once and the CPU's
// tests run the kernels' own code. Elsewhere it expands to nothing.
//
// A function so marked may call only functions so marked, and no library
// code: the kernels are built without CUDA's headers or libraries.
#ifndef STREAMGLOVE_UTIL_HOST_DEVICE_H_
#define STREAMGLOVE_UTIL_HOST_DEVICE_H_

#if defined(__CUDA__)
#define SG_HOST_DEVICE __attribute__((host)) __attribute__((device))
// A loop over a lane's components, unrolled so that they stay in registers.
#define SG_UNROLL _Pragma("unroll")
#else
#define SG_HOST_DEVICE
#define SG_UNROLL
#endif

#endif  // STREAMGLOVE_UTIL_HOST_DEVICE_H_
