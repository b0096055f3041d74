// Human-readable byte sizes: "512M", "1.5G", "4096".
#ifndef STREAMGLOVE_UTIL_SIZE_H_
#define STREAMGLOVE_UTIL_SIZE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "streamglove/status.h"

namespace streamglove {

// Parses a size with an optional binary suffix K, M, G or T (case-insensitive,
// an optional trailing "B" or "iB"): "1G" = 2^30 bytes.
Status ParseByteSize(std::string_view text, size_t* bytes);

// Formats bytes as ParseByteSize reads them, with the largest suffix that
// divides them exactly: "1G", "256M", "4097". For flags' defaults.
std::string FormatByteSize(uint64_t bytes);

// Formats bytes for people: "1.5 GiB", "312 KiB", "17 B".
std::string FormatBytes(double bytes);

}  // namespace streamglove

#endif  // STREAMGLOVE_UTIL_SIZE_H_
