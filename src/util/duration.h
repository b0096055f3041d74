// Human-readable durations: "90s", "10m", "1h30m", "1.5h", "600".
#ifndef STREAMGLOVE_UTIL_DURATION_H_
#define STREAMGLOVE_UTIL_DURATION_H_

#include <string>
#include <string_view>

#include "streamglove/status.h"

namespace streamglove {

// Parses one or more "<number><unit>" terms, unit s, m, h or d (a lone number
// is seconds), summed: "1h30m" = 5400 s. The total must be positive.
Status ParseDuration(std::string_view text, double* seconds);

// Formats seconds for people: "45.2 s", "9m 41s", "2h 05m".
std::string FormatDuration(double seconds);

}  // namespace streamglove

#endif  // STREAMGLOVE_UTIL_DURATION_H_
