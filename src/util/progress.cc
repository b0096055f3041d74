#include "util/progress.h"

#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

#include "util/config.h"
#include "util/size.h"

namespace streamglove {

ProgressMeter::ProgressMeter(std::string label, bool enabled)
    : label_(std::move(label)),
      enabled_(enabled && ::isatty(STDERR_FILENO) == 1),
      start_(Clock::now()),
      last_draw_(start_) {}

void ProgressMeter::Update(uint64_t bytes_done, uint64_t bytes_total, uint64_t tokens, uint64_t pairs) {
  if (!enabled_) return;
  const auto now = Clock::now();
  if (std::chrono::duration<double>(now - last_draw_).count() < config::kProgressIntervalSeconds) return;
  last_draw_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  std::string line = fmt::format("\r{}: {}", label_, FormatBytes(static_cast<double>(bytes_done)));
  if (bytes_total > 0) {
    const double fraction = std::min(1.0, static_cast<double>(bytes_done) / bytes_total);
    line += fmt::format(" / {} ({:.0f}%)", FormatBytes(static_cast<double>(bytes_total)), 100 * fraction);
    if (fraction > 0.001) {
      const auto eta = static_cast<long>(elapsed / fraction - elapsed);
      line += fmt::format("  ETA {}:{:02d}", eta / 60, eta % 60);
    }
  }
  line += fmt::format("  {}/s  {:.1f} M tokens/s", FormatBytes(bytes_done / elapsed), tokens / elapsed / 1e6);
  if (pairs > 0) line += fmt::format("  {:.1f} M pairs/s", pairs / elapsed / 1e6);
  line += "\x1b[K";
  std::fputs(line.c_str(), stderr);
  drawn_ = true;
}

void ProgressMeter::Finish() {
  if (drawn_) std::fputs("\r\x1b[K", stderr);
  drawn_ = false;
}

}  // namespace streamglove
