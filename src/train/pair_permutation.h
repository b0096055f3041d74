// PairPermutation: a random order of n pairs held on a device, computed
// pair by pair, so that an epoch over a resident store (train/device/)
// shuffles without a shuffled copy: position t of the epoch trains pair
// Of(t). A four-round Feistel network over the least even number of bits
// that holds n is a bijection of [0, 2^bits); walking the cycle from t
// until it falls below n is then a bijection of [0, n) (Black and Rogaway,
// "Ciphers with arbitrary finite domains", 2002). Since 2^bits < 4n, a walk
// takes fewer than 4 steps on average.
//
// The round function is SplitMix64's n-th draw (util/split_mix.h), keyed
// per round from the seed: compiled for the CPU and the GPU alike
// (SG_HOST_DEVICE), so the host's tests check the kernels' own order.
//
// Thread-safety: immutable; Of() is pure.
#ifndef STREAMGLOVE_TRAIN_PAIR_PERMUTATION_H_
#define STREAMGLOVE_TRAIN_PAIR_PERMUTATION_H_

#include <stdint.h>

#include "util/host_device.h"
#include "util/split_mix.h"

namespace streamglove {

class PairPermutation {
 public:
  static constexpr int kRounds = 4;

  SG_HOST_DEVICE PairPermutation(uint64_t n, uint64_t seed) : n_(n) {
    uint32_t bits = 2;
    while (bits < 64 && (uint64_t{1} << bits) < n) bits += 2;
    half_bits_ = bits / 2;
    for (int k = 0; k < kRounds; ++k) keys_[k] = SplitMix64::Draw(seed, k);
  }

  // The pair at position t (t < n) of the order.
  SG_HOST_DEVICE uint64_t Of(uint64_t t) const {
    do {
      t = Encrypt(t);
    } while (t >= n_);
    return t;
  }

 private:
  SG_HOST_DEVICE uint64_t Encrypt(uint64_t x) const {
    const uint64_t mask = (uint64_t{1} << half_bits_) - 1;
    uint64_t left = x >> half_bits_, right = x & mask;
    for (int k = 0; k < kRounds; ++k) {
      const uint64_t next = left ^ (SplitMix64::Draw(keys_[k], right) & mask);
      left = right;
      right = next;
    }
    return (left << half_bits_) | right;
  }

  uint64_t n_;
  uint32_t half_bits_;
  uint64_t keys_[kRounds];
};

}  // namespace streamglove

#endif  // STREAMGLOVE_TRAIN_PAIR_PERMUTATION_H_
