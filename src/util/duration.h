// The stages' timings.
#ifndef STREAMGLOVE_UTIL_DURATION_H_
#define STREAMGLOVE_UTIL_DURATION_H_

#include <chrono>

namespace streamglove {

// Seconds from `since` to now, on the steady clock.
inline double SecondsSince(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

}  // namespace streamglove

#endif  // STREAMGLOVE_UTIL_DURATION_H_
