// Little-endian fixed-width and varint encodings shared by the on-disk formats.
#ifndef STREAMGLOVE_UTIL_CODING_H_
#define STREAMGLOVE_UTIL_CODING_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace streamglove {

// Appends `value` as 8 little-endian bytes.
inline void PutFixed64(std::string* dst, uint64_t value) {
  for (int i = 0; i < 8; ++i) dst->push_back(static_cast<char>(value >> (8 * i)));
}

// Appends `value` as 4 little-endian bytes.
inline void PutFixed32(std::string* dst, uint32_t value) {
  for (int i = 0; i < 4; ++i) dst->push_back(static_cast<char>(value >> (8 * i)));
}

// The value of 4 little-endian bytes at p.
inline uint32_t DecodeFixed32(const unsigned char* p) {
  uint32_t value = 0;
  for (int i = 3; i >= 0; --i) value = (value << 8) | p[i];
  return value;
}

// The value of 8 little-endian bytes at p.
inline uint64_t DecodeFixed64(const unsigned char* p) {
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i) value = (value << 8) | p[i];
  return value;
}

// The longest varint: a 64-bit value in 7-bit groups.
inline constexpr size_t kMaxVarint64Bytes = 10;

// Writes `value` as a base-128 varint (1 to kMaxVarint64Bytes bytes) at
// dst, which must have room for the longest, and returns the end. For hot
// loops that encode many into one buffer: a string's push_back checks its
// capacity at every byte.
inline char* EncodeVarint64(char* dst, uint64_t value) {
  while (value >= 0x80) {
    *dst++ = static_cast<char>(value | 0x80);
    value >>= 7;
  }
  *dst++ = static_cast<char>(value);
  return dst;
}

// Appends `value` as a base-128 varint.
inline void PutVarint64(std::string* dst, uint64_t value) {
  char buf[kMaxVarint64Bytes];
  dst->append(buf, static_cast<size_t>(EncodeVarint64(buf, value) - buf));
}

// Appends `bytes` as varint(length) | bytes.
inline void PutLengthPrefixed(std::string* dst, std::string_view bytes) {
  PutVarint64(dst, bytes.size());
  dst->append(bytes);
}

// Decodes a varint from [*p, limit). On success advances *p and returns true;
// returns false on a truncated or over-long encoding.
inline bool GetVarint64(const char** p, const char* limit, uint64_t* value) {
  uint64_t result = 0;
  for (int shift = 0; shift <= 63 && *p < limit; shift += 7) {
    const auto byte = static_cast<uint8_t>(**p);
    ++*p;
    result |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      *value = result;
      return true;
    }
  }
  return false;
}

// Decodes what PutLengthPrefixed wrote from [*p, limit) into *bytes (a view
// of the input). On success advances *p and returns true.
inline bool GetLengthPrefixed(const char** p, const char* limit, std::string_view* bytes) {
  uint64_t length = 0;
  if (!GetVarint64(p, limit, &length) || length > static_cast<uint64_t>(limit - *p)) return false;
  *bytes = std::string_view(*p, length);
  *p += length;
  return true;
}

}  // namespace streamglove

#endif  // STREAMGLOVE_UTIL_CODING_H_
