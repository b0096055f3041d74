// ProgressMeter: one self-redrawing status line on stderr for long work:
// bytes read of the total, throughput, tokens per second and an ETA. Silent
// unless enabled and stderr is a terminal, so pipes and logs stay clean.
//
// Thread-safety: Update() and Finish() are called from one thread.
#ifndef STREAMGLOVE_UTIL_PROGRESS_H_
#define STREAMGLOVE_UTIL_PROGRESS_H_

#include <chrono>
#include <cstdint>
#include <string>

namespace streamglove {

class ProgressMeter {
 public:
  ProgressMeter(std::string label, bool enabled);
  ~ProgressMeter() { Finish(); }

  // bytes_total = 0 when unknown (no percentage or ETA then); pairs = 0
  // leaves the pairs rate out.
  void Update(uint64_t bytes_done, uint64_t bytes_total, uint64_t tokens, uint64_t pairs = 0);
  // Clears the line.
  void Finish();

 private:
  using Clock = std::chrono::steady_clock;
  const std::string label_;
  const bool enabled_;
  const Clock::time_point start_;
  Clock::time_point last_draw_;
  bool drawn_ = false;
};

}  // namespace streamglove

#endif  // STREAMGLOVE_UTIL_PROGRESS_H_
