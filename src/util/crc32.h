// CRC-32 (zlib's, the polynomial of gzip and PNG) of byte ranges, for the
// files that must detect damage: checkpoints and block files.
#ifndef STREAMGLOVE_UTIL_CRC32_H_
#define STREAMGLOVE_UTIL_CRC32_H_

#include <cstddef>
#include <cstdint>

namespace streamglove {

// The CRC of the bytes before, extended by n bytes at `data` (start with 0).
uint32_t ExtendCrc32(uint32_t crc, const void* data, size_t n);

// The CRC of two byte ranges one after the other, from the CRC of each and
// the second's length (zlib's crc32_combine): ranges checked on several
// threads give the whole's CRC.
uint32_t CombineCrc32(uint32_t first, uint32_t second, size_t second_bytes);

}  // namespace streamglove

#endif  // STREAMGLOVE_UTIL_CRC32_H_
