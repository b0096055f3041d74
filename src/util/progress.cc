#include "util/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include <fmt/format.h>

#include "streamglove/units.h"
#include "util/config.h"

namespace streamglove {

ProgressMeter::ProgressMeter(std::string label, bool enabled)
    : label_(std::move(label)),
      // A pipe or a log file gets no progress line: carriage returns would
      // leave one line per redraw in it.
      enabled_(enabled && ::isatty(STDERR_FILENO) == 1),
      start_(Clock::now()),
      last_draw_(start_) {}

bool ProgressMeter::Due(double* elapsed) {
  if (!enabled_) return false;
  const auto now = Clock::now();
  if (std::chrono::duration<double>(now - last_draw_).count() < config::kProgressIntervalSeconds)
    return false;
  last_draw_ = now;
  *elapsed = std::chrono::duration<double>(now - start_).count();
  return true;
}

std::string ProgressMeter::FractionAndEta(double fraction, double elapsed) {
  fraction = std::clamp(fraction, 0.0, 1.0);
  std::string text = fmt::format(" ({:.0f}%)", 100 * fraction);
  if (fraction > 0.001) {  // below that, the ETA is noise
    const auto eta = static_cast<long>(elapsed / fraction - elapsed);
    text += fmt::format("  ETA {}:{:02d}", eta / 60, eta % 60);
  }
  return text;
}

void ProgressMeter::Draw(const std::string& text) {
  // Back to the line's start, then erase what a longer previous line left.
  std::fputs(fmt::format("\r{}: {}\x1b[K", label_, text).c_str(), stderr);
  drawn_ = true;
}

void ProgressMeter::Update(uint64_t bytes_done, uint64_t bytes_total, uint64_t tokens,
                           uint64_t pairs) {
  double elapsed = 0;
  if (!Due(&elapsed)) return;
  std::string text = FormatBytes(static_cast<double>(bytes_done));
  if (bytes_total > 0) {
    text += fmt::format(" / {}", FormatBytes(static_cast<double>(bytes_total)));
    text += FractionAndEta(static_cast<double>(bytes_done) / bytes_total, elapsed);
  }
  text += fmt::format("  {}/s  {:.1f} M tokens/s", FormatBytes(bytes_done / elapsed),
                      tokens / elapsed / 1e6);
  if (pairs > 0) text += fmt::format("  {:.1f} M pairs/s", pairs / elapsed / 1e6);
  Draw(text);
}

void ProgressMeter::UpdateFraction(const std::string& what, double fraction,
                                   const std::string& rates) {
  double elapsed = 0;
  if (!Due(&elapsed)) return;
  Draw(what + FractionAndEta(fraction, elapsed) + "  " + rates);
}

void ProgressMeter::Finish() {
  if (drawn_) std::fputs("\r\x1b[K", stderr);
  drawn_ = false;
}

}  // namespace streamglove
