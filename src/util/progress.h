// ProgressMeter: one self-redrawing status line on stderr for long work:
// how much is done of the total, rates and an ETA. Silent unless enabled and
// stderr is a terminal, so pipes and logs stay clean.
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
  // For work not measured in bytes: `what` describes the position (e.g.
  // "epoch 3/15"), `fraction` in [0, 1] of this meter's work is done, and
  // `rates` follows the ETA.
  void UpdateFraction(const std::string& what, double fraction, const std::string& rates);
  // Clears the line.
  void Finish();

 private:
  using Clock = std::chrono::steady_clock;
  // Whether a redraw is due now; sets *elapsed (seconds since the start).
  bool Due(double* elapsed);
  // " (42%)  ETA 1:05" for a known fraction.
  static std::string FractionAndEta(double fraction, double elapsed);
  void Draw(const std::string& text);
  const std::string label_;
  const bool enabled_;
  const Clock::time_point start_;
  Clock::time_point last_draw_;
  bool drawn_ = false;
};

}  // namespace streamglove

#endif  // STREAMGLOVE_UTIL_PROGRESS_H_
