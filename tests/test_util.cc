#include "test_util.h"

#include <bzlib.h>
#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include <catch2/catch.hpp>

namespace streamglove::test {

std::map<uint64_t, uint64_t> MergedPairs(std::vector<std::unique_ptr<PairStream>> streams) {
  std::map<uint64_t, uint64_t> pairs;
  REQUIRE(MergePairStreams(std::move(streams), [&](const PairRecord& r) {
            pairs[r.key] = r.value;
            return Status::OK();
          }).ok());
  return pairs;
}

void WriteFile(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
  if (!out) throw std::runtime_error("cannot write " + path);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string ZstdFrames(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) {
    // With a content checksum, as the zstd command line writes by default.
    std::string frame(ZSTD_compressBound(p.size()) + 16, '\0');
    ZSTD_CCtx* cctx = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
    const size_t n = ZSTD_compress2(cctx, frame.data(), frame.size(), p.data(), p.size());
    ZSTD_freeCCtx(cctx);
    if (ZSTD_isError(n)) throw std::runtime_error("zstd");
    out.append(frame.data(), n);
  }
  return out;
}

std::string GzipMembers(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) {
    z_stream zs{};
    deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
    std::string member(deflateBound(&zs, p.size()) + 64, '\0');
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(p.data()));
    zs.avail_in = static_cast<uInt>(p.size());
    zs.next_out = reinterpret_cast<Bytef*>(member.data());
    zs.avail_out = static_cast<uInt>(member.size());
    if (deflate(&zs, Z_FINISH) != Z_STREAM_END) throw std::runtime_error("gzip");
    out.append(member.data(), zs.total_out);
    deflateEnd(&zs);
  }
  return out;
}

std::string XzStreams(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) {
    std::string stream(lzma_stream_buffer_bound(p.size()), '\0');
    size_t n = 0;
    if (lzma_easy_buffer_encode(
            6, LZMA_CHECK_CRC64, nullptr, reinterpret_cast<const uint8_t*>(p.data()), p.size(),
            reinterpret_cast<uint8_t*>(stream.data()), &n, stream.size()) != LZMA_OK) {
      throw std::runtime_error("xz");
    }
    out.append(stream.data(), n);
  }
  return out;
}

std::string Bzip2Streams(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) {
    std::string stream(p.size() + p.size() / 100 + 600, '\0');
    auto n = static_cast<unsigned>(stream.size());
    if (BZ2_bzBuffToBuffCompress(stream.data(), &n, const_cast<char*>(p.data()),
                                 static_cast<unsigned>(p.size()), 9, 0, 0) != BZ_OK) {
      throw std::runtime_error("bzip2");
    }
    out.append(stream.data(), n);
  }
  return out;
}

std::vector<std::string> JoinPhrases(const PhraseList& list, std::vector<std::string> tokens) {
  for (uint32_t pass = 1; pass <= list.passes(); ++pass) {
    std::vector<std::string> out;
    for (size_t i = 0; i < tokens.size(); ++i) {
      const bool pair = i + 1 < tokens.size() && tokens[i] != kDocEnd && tokens[i + 1] != kDocEnd;
      if (pair && list.Joins(pass, tokens[i], tokens[i + 1])) {
        out.push_back(tokens[i] + "_" + tokens[i + 1]);
        ++i;
      } else {
        out.push_back(tokens[i]);
      }
    }
    tokens = std::move(out);
  }
  return tokens;
}

std::vector<std::string> ReferenceTokens(const std::string& text) {
  constexpr int kMaxStringLength = 1000;
  size_t pos = 0;
  auto fgetc = [&]() -> int {
    return pos < text.size() ? static_cast<unsigned char>(text[pos++]) : EOF;
  };
  std::vector<std::string> out;
  for (;;) {
    char word[kMaxStringLength + 1];
    int i = 0, ch;
    bool newline_or_eof = false;
    for (;;) {
      ch = fgetc();
      if (ch == '\r') continue;
      if (i == 0 && (ch == '\n' || ch == EOF)) {
        newline_or_eof = true;
        break;
      }
      if (i == 0 && (ch == ' ' || ch == '\t')) continue;
      if (ch == EOF || ch == ' ' || ch == '\t' || ch == '\n') {
        if (ch == '\n') --pos;  // ungetc
        break;
      }
      if (i < kMaxStringLength - 1) word[i++] = static_cast<char>(ch);
    }
    word[i] = 0;
    if (i == kMaxStringLength - 1 && (word[i - 1] & 0x80) == 0x80) {
      if ((word[i - 1] & 0xC0) == 0xC0) {
        i -= 1;
      } else if (i > 2 && (word[i - 2] & 0xE0) == 0xE0) {
        i -= 2;
      } else if (i > 3 && (word[i - 3] & 0xF8) == 0xF0) {
        i -= 3;
      }
    }
    if (newline_or_eof) {
      if (ch == EOF) break;
      out.push_back(kDocEnd);
      continue;
    }
    out.emplace_back(word, i);
  }
  return out;
}

std::string RandomText(std::mt19937_64* rng, size_t bytes) {
  static const std::vector<std::string> kPieces = {
      "a",          "b",    "the", "Cat",  " ", " ",    "  ",       "\t",   "\n",           "\r",
      "\r\n",       "é",    "Ünï", "日本", "😀", "\xC3", "\xE2\x82", "\xFF", "\xF0\x9F\x98", "don't",
      "well-known", "3.14", ",",   "!",    "«»"};
  std::string s;
  while (s.size() < bytes) {
    const uint64_t r = (*rng)() % 1000;
    if (r == 0) {
      // A token around the 999-byte limit, ending in a multi-byte character.
      s.append(990 + (*rng)() % 30, 'x');
      s.append(kPieces[11 + (*rng)() % 4]);
    } else {
      s.append(kPieces[r % kPieces.size()]);
    }
  }
  return s;
}

// The offset of the first NUL or ill-formed UTF-8 byte of `line` (Unicode's
// table 3-7 of well-formed byte sequences), or npos: the test's own oracle.
size_t FirstBadByte(std::string_view line) {
  const auto* u = reinterpret_cast<const unsigned char*>(line.data());
  const size_t n = line.size();
  for (size_t i = 0; i < n;) {
    const unsigned b = u[i];
    if (b == 0) return i;
    if (b < 0x80) {
      ++i;
      continue;
    }
    unsigned lo = 0x80, hi = 0xBF;  // allowed range of the second byte
    size_t len = 0;
    if (b >= 0xC2 && b <= 0xDF)
      len = 2;
    else if (b == 0xE0)
      len = 3, lo = 0xA0;
    else if ((b >= 0xE1 && b <= 0xEC) || b == 0xEE || b == 0xEF)
      len = 3;
    else if (b == 0xED)
      len = 3, hi = 0x9F;
    else if (b == 0xF0)
      len = 4, lo = 0x90;
    else if (b >= 0xF1 && b <= 0xF3)
      len = 4;
    else if (b == 0xF4)
      len = 4, hi = 0x8F;
    else
      return i;
    if (i + len > n || u[i + 1] < lo || u[i + 1] > hi) return i;
    for (size_t k = 2; k < len; ++k) {
      if (u[i + k] < 0x80 || u[i + k] > 0xBF) return i;
    }
    i += len;
  }
  return std::string_view::npos;
}

// `text` without its bad lines; *bad counts them, *first_bad is the offset of
// the first bad byte.
std::string WithoutBadLines(const std::string& text, uint64_t* bad, size_t* first_bad) {
  std::string out;
  *bad = 0;
  *first_bad = std::string::npos;
  for (size_t pos = 0; pos < text.size();) {
    const size_t end = std::min(text.find('\n', pos), text.size() - 1) + 1;
    const std::string_view line(text.data() + pos, end - pos);
    const size_t at = FirstBadByte(line);
    if (at == std::string_view::npos) {
      out += line;
    } else {
      ++*bad;
      if (*first_bad == std::string::npos) *first_bad = pos + at;
    }
    pos = end;
  }
  return out;
}

std::string ReplaceBadBytes(std::string text) {
  for (size_t pos = 0;;) {
    const size_t at = FirstBadByte(std::string_view(text).substr(pos));
    if (at == std::string_view::npos) return text;
    text[pos + at] = 'x';
    pos += at;
  }
}

TestDir::TestDir(const std::string& prefix) { REQUIRE(dir_.Create("", prefix).ok()); }

std::string TestDir::Write(const std::string& name, const std::string& data) const {
  const std::string path = dir_.path() + "/" + name;
  WriteFile(path, data);
  return path;
}

}  // namespace streamglove::test
