#include "util/duration.h"

#include <charconv>
#include <cmath>

#include <fmt/format.h>

namespace streamglove {

Status ParseDuration(std::string_view text, double* seconds) {
  const auto invalid = [&](std::string_view why) {
    return Status::InvalidArgument(fmt::format("invalid duration '{}': {}", text, why));
  };
  double total = 0;
  const char* p = text.data();
  const char* const end = text.data() + text.size();
  if (p == end) return invalid("empty");
  while (p < end) {
    double value = 0;
    const auto [after, ec] = std::from_chars(p, end, value);
    if (ec != std::errc() || !std::isfinite(value) || value < 0)
      return invalid("expected a number");
    p = after;
    double unit = 1;
    if (p < end) {
      switch (*p) {
        case 's':
          unit = 1;
          break;
        case 'm':
          unit = 60;
          break;
        case 'h':
          unit = 3600;
          break;
        case 'd':
          unit = 86400;
          break;
        default:
          return invalid("unknown unit (s, m, h or d)");
      }
      ++p;
    } else if (total > 0) {
      return invalid("a number after a unit needs its own unit");
    }
    total += value * unit;
  }
  if (!(total > 0)) return invalid("must be positive");
  if (total > 1e9) return invalid("too long");
  *seconds = total;
  return Status::OK();
}

std::string FormatDuration(double seconds) {
  if (seconds < 60) return fmt::format("{:.1f} s", seconds);
  const auto whole = static_cast<long long>(std::llround(seconds));
  if (whole < 3600) return fmt::format("{}m {:02}s", whole / 60, whole % 60);
  return fmt::format("{}h {:02}m", whole / 3600, whole % 3600 / 60);
}

}  // namespace streamglove
