#include "util/crc32.h"

#include <zlib.h>

namespace streamglove {

uint32_t ExtendCrc32(uint32_t crc, const void* data, size_t n) {
  return static_cast<uint32_t>(crc32_z(crc, static_cast<const Bytef*>(data), n));
}

}  // namespace streamglove
