#include "corpus/utf8.h"

#include <utf8proc.h>

namespace streamglove {

size_t FirstInvalidUtf8(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const auto* const begin = p;
  const auto* end = p + s.size();
  while (p < end) {
    const unsigned c = *p;
    if (c < 0x80) {
      ++p;
      continue;
    }
    int n;
    unsigned cp;
    if (c >= 0xC2 && c <= 0xDF) {
      n = 1;
      cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      n = 2;
      cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      n = 3;
      cp = c & 0x07;
    } else {
      return static_cast<size_t>(p - begin);
    }
    if (end - p <= n) return static_cast<size_t>(p - begin);
    for (int i = 1; i <= n; ++i) {
      if ((p[i] & 0xC0) != 0x80) return static_cast<size_t>(p - begin);
      cp = (cp << 6) | (p[i] & 0x3F);
    }
    if ((n == 2 && cp < 0x800) || (n == 3 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF)) {
      return static_cast<size_t>(p - begin);
    }
    p += n + 1;
  }
  return std::string_view::npos;
}

bool IsValidUtf8(std::string_view s) { return FirstInvalidUtf8(s) == std::string_view::npos; }

void AppendLowercase(std::string_view s, std::string* out) {
  const auto* p = reinterpret_cast<const utf8proc_uint8_t*>(s.data());
  utf8proc_ssize_t left = static_cast<utf8proc_ssize_t>(s.size());
  while (left > 0) {
    if (*p < 0x80) {
      const char c = static_cast<char>(*p);
      out->push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c);
      ++p;
      --left;
      continue;
    }
    utf8proc_int32_t cp;
    const utf8proc_ssize_t n = utf8proc_iterate(p, left, &cp);
    if (n <= 0 || cp < 0) {  // invalid: keep the byte
      out->push_back(static_cast<char>(*p));
      ++p;
      --left;
      continue;
    }
    utf8proc_uint8_t buf[4];
    const utf8proc_ssize_t m = utf8proc_encode_char(utf8proc_tolower(cp), buf);
    out->append(reinterpret_cast<const char*>(buf), static_cast<size_t>(m));
    p += n;
    left -= n;
  }
}

}  // namespace streamglove
