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

// The value of 8 little-endian bytes at p.
inline uint64_t DecodeFixed64(const unsigned char* p) {
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i) value = (value << 8) | p[i];
  return value;
}

// Appends `value` as a base-128 varint (1 to 10 bytes).
inline void PutVarint64(std::string* dst, uint64_t value) {
  while (value >= 0x80) {
    dst->push_back(static_cast<char>(value | 0x80));
    value >>= 7;
  }
  dst->push_back(static_cast<char>(value));
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
