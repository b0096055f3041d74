#include "streamglove/units.h"

#include <cctype>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

namespace streamglove {

Status ParseByteSize(std::string_view text, size_t* bytes) {
  const std::string original(text);
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || value < 0 || !std::isfinite(value)) {
    return Status::InvalidArgument(fmt::format("invalid size '{}'", original));
  }
  std::string suffix(end, text.data() + text.size());
  for (char& c : suffix) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (suffix.ends_with("IB"))
    suffix.resize(suffix.size() - 2);
  else if (suffix.size() > 1 && suffix.ends_with("B"))
    suffix.resize(suffix.size() - 1);
  double scale = 1;
  if (suffix.empty() || suffix == "B")
    scale = 1;
  else if (suffix == "K")
    scale = 1024.0;
  else if (suffix == "M")
    scale = 1024.0 * 1024;
  else if (suffix == "G")
    scale = 1024.0 * 1024 * 1024;
  else if (suffix == "T")
    scale = 1024.0 * 1024 * 1024 * 1024;
  else
    return Status::InvalidArgument(fmt::format("invalid size '{}': unknown unit", original));
  const double total = value * scale;
  if (total >= 9.0e18) return Status::InvalidArgument(fmt::format("size '{}' too large", original));
  *bytes = static_cast<size_t>(total);
  return Status::OK();
}

std::string FormatByteSize(uint64_t bytes) {
  static constexpr char kSuffixes[] = {'T', 'G', 'M', 'K'};
  for (int i = 0; i < 4; ++i) {
    const uint64_t unit = uint64_t{1} << (10 * (4 - i));
    if (bytes != 0 && bytes % unit == 0) return fmt::format("{}{}", bytes / unit, kSuffixes[i]);
  }
  return std::to_string(bytes);
}

std::string FormatBytes(double bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  while (bytes >= 1024 && unit < 4) {
    bytes /= 1024;
    ++unit;
  }
  return unit == 0 ? fmt::format("{:.0f} B", bytes) : fmt::format("{:.1f} {}", bytes, kUnits[unit]);
}

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
