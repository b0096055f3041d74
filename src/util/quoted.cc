#include "util/quoted.h"

#include <fmt/format.h>

namespace streamglove {

namespace {

// The length of the valid UTF-8 sequence at s[i], or 0.
size_t Utf8SequenceAt(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char lead = byte(i);
  const size_t n = lead < 0x80           ? 1
                   : (lead >> 5) == 0x6  ? 2
                   : (lead >> 4) == 0xE  ? 3
                   : (lead >> 3) == 0x1E ? 4
                                         : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  }
  return n;
}

}  // namespace

std::string Quoted(std::string_view text, size_t max_bytes) {
  std::string out = "'";
  size_t i = 0;
  while (i < text.size() && i < max_bytes) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    const size_t n = Utf8SequenceAt(text, i);
    if (n == 0 || c < 0x20 || c == 0x7f) {
      out += fmt::format("\\x{:02x}", c);
      ++i;
    } else if (c == '\\') {
      out += "\\\\";
      ++i;
    } else {
      out.append(text.substr(i, n));
      i += n;
    }
  }
  out += '\'';
  if (i < text.size()) out += fmt::format("... ({} bytes)", text.size());
  return out;
}

}  // namespace streamglove
