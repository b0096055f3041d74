// Fast non-cryptographic hashing of byte strings. Besides hash tables it
// names things on disk (input fingerprints in a store's ingest records,
// checkpoint option hashes, block-stream stamps) and seeds the training
// shuffles: changing it invalidates those files and changes trained vectors.
#ifndef STREAMGLOVE_UTIL_HASH_H_
#define STREAMGLOVE_UTIL_HASH_H_

#include <cstdint>
#include <cstring>
#include <string_view>

namespace streamglove {

namespace hash_internal {
inline uint64_t Mix(uint64_t a, uint64_t b) {
  const __uint128_t r = static_cast<__uint128_t>(a) * b;
  return static_cast<uint64_t>(r) ^ static_cast<uint64_t>(r >> 64);
}
inline uint64_t Load64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
}  // namespace hash_internal

// Hashes `s` 8 bytes at a time with 128-bit multiply mixing (wyhash-like).
inline uint64_t HashBytes(std::string_view s) {
  using namespace hash_internal;
  constexpr uint64_t kP0 = 0xa0761d6478bd642full, kP1 = 0xe7037ed1a0b428dbull;
  const char* p = s.data();
  size_t n = s.size();
  uint64_t h = kP0 ^ (n * kP1);
  while (n >= 8) {
    h = Mix(h ^ Load64(p), kP1);
    p += 8;
    n -= 8;
  }
  uint64_t tail = 0;
  if (n > 0) std::memcpy(&tail, p, n);
  return Mix(h ^ tail ^ kP1, kP0 ^ n);
}

}  // namespace streamglove

#endif  // STREAMGLOVE_UTIL_HASH_H_
