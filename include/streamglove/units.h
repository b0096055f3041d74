// Human-readable sizes and durations, as the command line and the Python
// module read and print them: "512M", "1.5G", "4096"; "90s", "1h30m", "600".
//
// Thread-safety: pure functions.
#ifndef STREAMGLOVE_UNITS_H_
#define STREAMGLOVE_UNITS_H_

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

// Parses one or more "<number><unit>" terms, unit s, m, h or d (a lone number
// is seconds), summed: "1h30m" = 5400 s. The total must be positive.
Status ParseDuration(std::string_view text, double* seconds);

// Formats seconds for people: "45.2 s", "9m 41s", "2h 05m".
std::string FormatDuration(double seconds);

}  // namespace streamglove

#endif  // STREAMGLOVE_UNITS_H_
