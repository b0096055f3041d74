#include "cooccur/pair_buffer.h"

#include <algorithm>
#include <array>
#include <bit>
#include <utility>

namespace streamglove {

namespace {
constexpr int kDigitBits = 11;  // 2048 buckets: the counts stay in L1
}

PairBuffer::PairBuffer(size_t capacity, size_t initial_limit, uint32_t vocab_size)
    : records_(capacity),
      scratch_(capacity),
      limit_(std::clamp<size_t>(initial_limit, std::min<size_t>(capacity, 1), capacity)),
      id_bits_(std::max(1, static_cast<int>(std::bit_width(vocab_size)))) {}

void PairBuffer::SortAndCombine() {
  if (size_ == 0) return;
  // Sort on a compacted key (row bits then col bits) so only the bits in use
  // cost a pass.
  const int bits = 2 * id_bits_;
  const auto compact = [this](uint64_t key) {
    return (key >> 32) << id_bits_ | (key & 0xffffffffu);
  };
  PairRecord* src = records_.data();
  PairRecord* dst = scratch_.data();
  for (int shift = 0; shift < bits; shift += kDigitBits) {
    std::array<size_t, (1 << kDigitBits)> counts{};
    const uint64_t mask = (uint64_t{1} << kDigitBits) - 1;
    for (size_t i = 0; i < size_; ++i) ++counts[(compact(src[i].key) >> shift) & mask];
    size_t sum = 0;
    for (size_t& c : counts) sum += std::exchange(c, sum);
    for (size_t i = 0; i < size_; ++i)
      dst[counts[(compact(src[i].key) >> shift) & mask]++] = src[i];
    std::swap(src, dst);
  }
  // Combine equal keys into the front of `src`.
  size_t out = 0;
  for (size_t i = 1; i < size_; ++i) {
    if (src[i].key == src[out].key) {
      src[out].value += src[i].value;
    } else {
      src[++out] = src[i];
    }
  }
  size_ = out + 1;
  if (src != records_.data()) std::copy(src, src + size_, records_.data());
}

}  // namespace streamglove
