// AliasTable: O(1) draws from a fixed discrete distribution (Walker's alias
// method, with Vose's stable construction). Used for SGNS's noise words and
// the corpus generator's Zipf law, where a binary search over a CDF of
// millions of entries would dominate.
//
// Thread-safety: immutable after construction; Sample() may be called from
// any number of threads.
#ifndef STREAMGLOVE_UTIL_ALIAS_TABLE_H_
#define STREAMGLOVE_UTIL_ALIAS_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "util/host_device.h"

namespace streamglove {

class AliasTable {
 public:
  // REQUIRES: weights non-empty, non-negative, with a positive sum, fewer
  // than 2^32 of them.
  explicit AliasTable(const std::vector<double>& weights)
      : threshold_(weights.size()), alias_(weights.size()) {
    const size_t n = weights.size();
    double sum = 0;
    for (double w : weights) sum += w;
    std::vector<double> scaled(n);
    std::vector<uint32_t> small, large;
    for (size_t i = 0; i < n; ++i) {
      scaled[i] = weights[i] * static_cast<double>(n) / sum;
      (scaled[i] < 1 ? small : large).push_back(static_cast<uint32_t>(i));
    }
    while (!small.empty() && !large.empty()) {
      const uint32_t s = small.back(), l = large.back();
      small.pop_back();
      threshold_[s] = Threshold(scaled[s]);
      alias_[s] = l;
      scaled[l] -= 1 - scaled[s];
      if (scaled[l] < 1) {
        large.pop_back();
        small.push_back(l);
      }
    }
    // What is left has probability 1 up to rounding.
    for (uint32_t i : small) threshold_[i] = UINT32_MAX, alias_[i] = i;
    for (uint32_t i : large) threshold_[i] = UINT32_MAX, alias_[i] = i;
  }

  // A draw from 64 uniformly random bits: the high half picks a bucket, the
  // low half decides between it and its alias.
  size_t Sample(uint64_t bits) const {
    return Pick(bits, static_cast<uint32_t>(threshold_.size()), threshold_.data(), alias_.data());
  }

  // Sample() on a table given as its arrays of n entries (a GPU's copy).
  static SG_HOST_DEVICE uint32_t Pick(uint64_t bits, uint32_t n, const uint32_t* thresholds,
                                      const uint32_t* aliases) {
    const uint32_t i = static_cast<uint32_t>(((bits >> 32) * n) >> 32);
    return static_cast<uint32_t>(bits) < thresholds[i] ? i : aliases[i];
  }

  size_t size() const { return threshold_.size(); }

  // The table itself: entry i is drawn when a draw's low half is below
  // thresholds()[i], else aliases()[i] is (what a training device samples
  // from, train/device/device_api.h).
  const std::vector<uint32_t>& thresholds() const { return threshold_; }
  const std::vector<uint32_t>& aliases() const { return alias_; }

  // A table of thresholds() and aliases() of another (same size, aliases
  // below it): draws as that one did.
  AliasTable(std::vector<uint32_t> thresholds, std::vector<uint32_t> aliases)
      : threshold_(std::move(thresholds)), alias_(std::move(aliases)) {}

 private:
  static uint32_t Threshold(double p) {
    return p >= 1 ? UINT32_MAX : static_cast<uint32_t>(p * 4294967296.0);
  }

  std::vector<uint32_t> threshold_;
  std::vector<uint32_t> alias_;
};

}  // namespace streamglove

#endif  // STREAMGLOVE_UTIL_ALIAS_TABLE_H_
