// SplitMix64: a small, fast generator (Steele, Lea and Flood 2014) for hot
// loops: SGNS's noise words and the block stream's shuffles. Not for
// anything that must be unpredictable; seeded explicitly, so a run that
// seeds it the same way draws the same numbers.
//
// Thread-safety: one generator per thread.
#ifndef STREAMGLOVE_UTIL_SPLIT_MIX_H_
#define STREAMGLOVE_UTIL_SPLIT_MIX_H_

#include <cstddef>
#include <cstdint>
#include <utility>

#include "util/host_device.h"

namespace streamglove {

class SplitMix64 {
  __extension__ typedef unsigned __int128 Uint128;  // a GCC and clang type, not ISO C++

 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}

  uint64_t Next() { return Mix(state_ += kGamma); }

  // The n-th draw (from 0) of a generator seeded with `seed`, without the
  // n draws before it: the state only ever adds kGamma, so a GPU's threads
  // each take their own draws of one stream (train/pair_update.h).
  static SG_HOST_DEVICE uint64_t Draw(uint64_t seed, uint64_t n) {
    return Mix(seed + (n + 1) * kGamma);
  }

  // A number in [0, n), by the high half of a 64 x 64-bit product (Lemire):
  // no division; the bias, below n / 2^64, is far under anything measurable.
  uint64_t Below(uint64_t n) {
    return static_cast<uint64_t>((static_cast<Uint128>(Next()) * n) >> 64);
  }

 private:
  static constexpr uint64_t kGamma = 0x9E3779B97F4A7C15ull;

  static SG_HOST_DEVICE uint64_t Mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

  uint64_t state_;
};

// Fisher-Yates: a uniformly random order of a[0..n), drawn from `random`.
template <class T>
void ShuffleInPlace(T* a, size_t n, SplitMix64& random) {
  for (size_t i = n; i > 1; --i) std::swap(a[i - 1], a[random.Below(i)]);
}

}  // namespace streamglove

#endif  // STREAMGLOVE_UTIL_SPLIT_MIX_H_
