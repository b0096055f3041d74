// CRC-32 (zlib's, the polynomial of gzip and PNG) of byte ranges, for the
// files that must detect damage: checkpoints and block files.
#ifndef STREAMGLOVE_UTIL_CRC32_H_
#define STREAMGLOVE_UTIL_CRC32_H_

#include <cstddef>
#include <cstdint>

namespace streamglove {

// The CRC of the bytes before, extended by n bytes at `data` (start with 0).
uint32_t ExtendCrc32(uint32_t crc, const void* data, size_t n);

}  // namespace streamglove

#endif  // STREAMGLOVE_UTIL_CRC32_H_
