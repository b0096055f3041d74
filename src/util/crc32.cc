#include "util/crc32.h"

#include <zlib.h>

namespace streamglove {

uint32_t ExtendCrc32(uint32_t crc, const void* data, size_t n) {
  return static_cast<uint32_t>(crc32_z(crc, static_cast<const Bytef*>(data), n));
}

uint32_t CombineCrc32(uint32_t first, uint32_t second, size_t second_bytes) {
  return static_cast<uint32_t>(crc32_combine(first, second, static_cast<z_off_t>(second_bytes)));
}

}  // namespace streamglove
