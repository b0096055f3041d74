// Human-readable durations: "90s", "10m", "1h30m", "1.5h", "600".
#ifndef STREAMGLOVE_UTIL_DURATION_H_
#define STREAMGLOVE_UTIL_DURATION_H_

#include <chrono>
#include <string>
#include <string_view>

#include "streamglove/status.h"

namespace streamglove {

// Parses one or more "<number><unit>" terms, unit s, m, h or d (a lone number
// is seconds), summed: "1h30m" = 5400 s. The total must be positive.
Status ParseDuration(std::string_view text, double* seconds);

// Formats seconds for people: "45.2 s", "9m 41s", "2h 05m".
std::string FormatDuration(double seconds);

// Seconds from `since` to now, on the steady clock (the stages' timings).
inline double SecondsSince(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

}  // namespace streamglove

#endif  // STREAMGLOVE_UTIL_DURATION_H_
