#include "streamglove/tokenizer.h"

#include <utf8proc.h>

#include <array>

#include <unicode/uchar.h>

#include "corpus/icu_word_breaker.h"
#include "corpus/utf8.h"

namespace streamglove {

namespace {

// Byte classes of the whitespace tokenizer, combined with | over a token.
enum : uint8_t { kSeparator = 1, kNewline = 2, kCarriageReturn = 4, kHighBit = 8 };

constexpr std::array<uint8_t, 256> MakeWhitespaceClasses() {
  std::array<uint8_t, 256> t{};
  t[' '] = t['\t'] = kSeparator;
  t['\n'] = kNewline;
  t['\r'] = kCarriageReturn;
  for (int c = 0x80; c < 256; ++c) t[c] = kHighBit;
  return t;
}
constexpr std::array<uint8_t, 256> kWhitespaceClasses = MakeWhitespaceClasses();

enum class CharClass { kWord, kSpace, kNewline, kPunct };

CharClass Classify(int32_t cp) {
  if (cp == '\n') return CharClass::kNewline;
  switch (utf8proc_category(cp)) {
    case UTF8PROC_CATEGORY_LU:
    case UTF8PROC_CATEGORY_LL:
    case UTF8PROC_CATEGORY_LT:
    case UTF8PROC_CATEGORY_LM:
    case UTF8PROC_CATEGORY_LO:
    case UTF8PROC_CATEGORY_MN:
    case UTF8PROC_CATEGORY_MC:
    case UTF8PROC_CATEGORY_ME:
    case UTF8PROC_CATEGORY_ND:
    case UTF8PROC_CATEGORY_NL:
    case UTF8PROC_CATEGORY_NO:
      return CharClass::kWord;
    case UTF8PROC_CATEGORY_ZS:
    case UTF8PROC_CATEGORY_ZL:
    case UTF8PROC_CATEGORY_ZP:
    case UTF8PROC_CATEGORY_CC:
    case UTF8PROC_CATEGORY_CF:
      return CharClass::kSpace;
    default:
      return CharClass::kPunct;
  }
}

bool IsDigit(int32_t cp) {
  return (cp >= '0' && cp <= '9') || (cp >= 0x80 && utf8proc_category(cp) == UTF8PROC_CATEGORY_ND);
}

// One code point of text at `i`: invalid bytes are taken one at a time and
// treated as word characters, so they stay in the token that holds them.
struct CodePoint {
  int32_t cp;
  size_t length;
  bool valid;
  CharClass cls;
};

CodePoint DecodeAt(std::string_view text, size_t i) {
  const auto c = static_cast<unsigned char>(text[i]);
  if (c < 0x80) return {c, 1, true, Classify(c)};
  int32_t cp = 0;
  const utf8proc_ssize_t n =
      utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(text.data() + i),
                       static_cast<utf8proc_ssize_t>(text.size() - i), &cp);
  if (n <= 0 || cp < 0) return {-1, 1, false, CharClass::kWord};
  return {cp, static_cast<size_t>(n), true, Classify(cp)};
}

}  // namespace

namespace {

bool IsWordConnector(int32_t cp) { return cp == '\'' || cp == 0x2019 || cp == '-'; }
bool IsDigitConnector(int32_t cp) { return cp == '.' || cp == ','; }

// False where the words tokenizer might put p and q in one token.
bool SafeBetween(const CodePoint& p, const CodePoint& q) {
  const bool pw = p.cls == CharClass::kWord, qw = q.cls == CharClass::kWord;
  if (pw && qw) return false;
  if ((pw && q.valid && IsWordConnector(q.cp)) || (qw && p.valid && IsWordConnector(p.cp)))
    return false;
  const bool pd = p.valid && IsDigit(p.cp), qd = q.valid && IsDigit(q.cp);
  return !((pd && q.valid && IsDigitConnector(q.cp)) || (qd && p.valid && IsDigitConnector(p.cp)));
}

// Where ICU's word rules always break, whatever surrounds the two code
// points: after a space, or an ideographic punctuation mark, unless a
// combining mark or format character (which attach to what precedes them,
// rule WB4) follows.
bool IsIcuHardBreakAfter(const CodePoint& p) {
  if (!p.valid) return false;
  if (p.cp == ' ' || p.cp == '\t') return true;
  // A mark whose Word_Break lets ICU join the letters or digits around it
  // (MidLetter, MidNum, MidNumLet, ExtendNumLet) is no break, whatever its
  // category: U+202F, the narrow no-break space, and the fullwidth full stop,
  // comma, colon and low line (found by tests/fuzz).
  switch (u_getIntPropertyValue(p.cp, UCHAR_WORD_BREAK)) {
    case U_WB_MIDLETTER:
    case U_WB_MIDNUM:
    case U_WB_MIDNUMLET:
    case U_WB_EXTENDNUMLET:
      return false;
    default:
      break;
  }
  const bool cjk_block = (p.cp >= 0x3000 && p.cp <= 0x303F) || (p.cp >= 0xFF01 && p.cp <= 0xFF65);
  if (!cjk_block) return p.cp >= 0x80 && utf8proc_category(p.cp) == UTF8PROC_CATEGORY_ZS;
  switch (utf8proc_category(p.cp)) {
    case UTF8PROC_CATEGORY_PC:
    case UTF8PROC_CATEGORY_PD:
    case UTF8PROC_CATEGORY_PS:
    case UTF8PROC_CATEGORY_PE:
    case UTF8PROC_CATEGORY_PI:
    case UTF8PROC_CATEGORY_PF:
    case UTF8PROC_CATEGORY_PO:
    case UTF8PROC_CATEGORY_ZS:
      return true;
    default:
      return false;
  }
}

bool AttachesToPrevious(const CodePoint& q) {
  if (!q.valid || q.cp < 0x80) return false;
  switch (utf8proc_category(q.cp)) {
    case UTF8PROC_CATEGORY_MN:
    case UTF8PROC_CATEGORY_MC:
    case UTF8PROC_CATEGORY_ME:
    case UTF8PROC_CATEGORY_CF:
      return true;
    default:
      return false;
  }
}

bool SafeBetween(TokenizerKind kind, const CodePoint& p, const CodePoint& q) {
  return kind == TokenizerKind::kIcu ? IsIcuHardBreakAfter(p) && !AttachesToPrevious(q)
                                     : SafeBetween(p, q);
}

}  // namespace

size_t LastSafeCut(std::string_view text, TokenizerKind kind) {
  if (kind == TokenizerKind::kWhitespace) {
    const size_t i = text.find_last_of(" \t");
    return i == std::string_view::npos ? 0 : i + 1;
  }
  // A sequence the text's end cuts short is not known yet (a chunk buffer
  // ends anywhere): set it aside like what follows, or its start could pass
  // for an invalid byte that joins nothing (found by tests/fuzz).
  size_t lead = text.size();
  while (lead > 0 && text.size() - lead < 3 && IsUtf8Continuation(text[lead - 1])) --lead;
  if (lead > 0) {
    const auto c = static_cast<unsigned char>(text[lead - 1]);
    const size_t need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    if (need > 1 && text.size() - (lead - 1) < need) text = text.substr(0, lead - 1);
  }
  if (text.empty()) return 0;
  // Walk code points backwards, q at `next` and p before it. The end of the
  // text is no candidate: what follows it is not known yet.
  size_t next = text.size() - 1;
  while (next > 0 && IsUtf8Continuation(text[next])) --next;
  CodePoint q = DecodeAt(text, next);
  while (next > 0) {
    size_t start = next - 1;
    while (start > 0 && IsUtf8Continuation(text[start])) --start;
    const CodePoint p = DecodeAt(text, start);
    if (start + p.length == next && SafeBetween(kind, p, q)) return next;
    q = p;
    next = start;
  }
  return 0;
}

size_t InTokenCut(std::string_view text, TokenizerKind kind) {
  if (kind == TokenizerKind::kWhitespace) return text.size();
  for (size_t end = text.size(); end > 0;) {
    size_t start = end - 1;
    while (start > 0 && IsUtf8Continuation(text[start])) --start;
    const CodePoint c = DecodeAt(text, start);
    if (start + c.length == end && c.cls == CharClass::kWord) return end;
    end = start;
  }
  return text.size();
}

size_t FirstSafeCut(std::string_view text, TokenizerKind kind) {
  if (kind == TokenizerKind::kWhitespace) {
    const size_t i = text.find_first_of(" \t\n");
    return i == std::string_view::npos ? text.size() : i;
  }
  if (text.empty()) return 0;
  CodePoint p = DecodeAt(text, 0);
  for (size_t i = p.length; i < text.size(); i += p.length) {
    const CodePoint q = DecodeAt(text, i);
    if (SafeBetween(kind, p, q) || q.cls == CharClass::kNewline) return i;
    p = q;
  }
  return text.size();
}

size_t TruncateTokenLength(std::string_view token) {
  // Transcribes glove/src/common.c get_word(): i == MAX_STRING_LENGTH - 1.
  const size_t i = kMaxTokenBytes;
  if (token.size() < i) return token.size();
  const auto w = [&](size_t k) { return static_cast<unsigned char>(token[k]); };
  if ((w(i - 1) & 0x80) == 0x80) {
    if ((w(i - 1) & 0xC0) == 0xC0) return i - 1;
    if ((w(i - 2) & 0xE0) == 0xE0) return i - 2;
    if ((w(i - 3) & 0xF8) == 0xF0) return i - 3;
  }
  return i;
}

Tokenizer::Tokenizer(const CorpusOptions& options)
    : lowercase_(options.lowercase),
      kind_(options.tokenizer),
      icu_(options.tokenizer == TokenizerKind::kIcu ? std::make_unique<IcuWordBreaker>()
                                                    : nullptr) {}

Tokenizer::~Tokenizer() = default;

size_t Tokenizer::Tokenize(std::string_view text, bool skip_partial_token, TokenSink* sink) {
  switch (kind_) {
    case TokenizerKind::kWhitespace:
      return TokenizeWhitespace(text, skip_partial_token, sink);
    case TokenizerKind::kWords:
      return TokenizeWords(text, skip_partial_token, sink);
    case TokenizerKind::kIcu:
      return TokenizeIcu(text, skip_partial_token, sink);
  }
  return std::string_view::npos;
}

void Tokenizer::Emit(std::string_view token, bool has_cr, bool has_high, bool* invalid,
                     TokenSink* sink) {
  if (has_high && !IsValidUtf8(token)) {
    ++stats_.invalid_utf8_tokens;
    *invalid = true;
  }
  if (has_cr) {
    scratch_.clear();
    for (char c : token) {
      if (c != '\r') scratch_.push_back(c);
    }
    token = scratch_;
    if (token.empty()) return;
  }
  if (lowercase_) {
    word_.clear();
    AppendLowercase(token, &word_);
    token = word_;
  }
  if (token.size() >= kMaxTokenBytes) {
    if (token.size() > kMaxTokenBytes) ++stats_.truncated_tokens;
    token = token.substr(0, TruncateTokenLength(token));
  }
  ++stats_.tokens;
  sink->OnToken(token);
}

size_t Tokenizer::TokenizeWhitespace(std::string_view text, bool skip_partial_token,
                                     TokenSink* sink) {
  const auto* begin = reinterpret_cast<const unsigned char*>(text.data());
  const auto* end = begin + text.size();
  const auto* p = begin;
  size_t first_invalid = std::string_view::npos;
  if (skip_partial_token) p += FirstSafeCut(text, TokenizerKind::kWhitespace);
  while (p < end) {
    unsigned cls = kWhitespaceClasses[*p];
    if (cls & (kSeparator | kNewline)) {
      if (cls & kNewline) sink->OnDocumentEnd();
      ++p;
      continue;
    }
    const auto* start = p;
    unsigned flags = 0;
    do {
      flags |= cls;
      ++p;
    } while (p < end && !((cls = kWhitespaceClasses[*p]) & (kSeparator | kNewline)));
    bool invalid = false;
    Emit(std::string_view(reinterpret_cast<const char*>(start), static_cast<size_t>(p - start)),
         flags & kCarriageReturn, flags & kHighBit, &invalid, sink);
    if (invalid && first_invalid == std::string_view::npos) first_invalid = start - begin;
  }
  return first_invalid;
}

size_t Tokenizer::TokenizeWords(std::string_view text, bool skip_partial_token, TokenSink* sink) {
  size_t first_invalid = std::string_view::npos;
  size_t i = 0;
  if (skip_partial_token) i = FirstSafeCut(text, TokenizerKind::kWords);
  size_t word_start = 0, word_end = 0;  // the open word, when word_end > word_start
  bool word_high = false, last_digit = false;
  auto flush = [&] {
    if (word_end > word_start) {
      bool invalid = false;
      Emit(text.substr(word_start, word_end - word_start), false, word_high, &invalid, sink);
      if (invalid && first_invalid == std::string_view::npos) first_invalid = word_start;
    }
    word_start = word_end = 0;
    word_high = false;
  };
  while (i < text.size()) {
    const CodePoint c = DecodeAt(text, i);
    switch (c.cls) {
      case CharClass::kWord:
        if (word_end <= word_start) word_start = i;
        word_end = i + c.length;
        word_high |= c.length > 1 || !c.valid;
        last_digit = c.valid && IsDigit(c.cp);
        break;
      case CharClass::kNewline:
        flush();
        sink->OnDocumentEnd();
        break;
      case CharClass::kSpace:
        flush();
        break;
      case CharClass::kPunct: {
        const bool in_word = word_end > word_start;
        bool joins = false;
        if (in_word && i + c.length < text.size()) {
          const CodePoint next = DecodeAt(text, i + c.length);
          if (c.cp == '\'' || c.cp == 0x2019 || c.cp == '-') {
            joins = next.cls == CharClass::kWord && next.valid;
          } else if (c.cp == '.' || c.cp == ',') {
            joins = last_digit && next.valid && IsDigit(next.cp);
          }
        }
        if (joins) {
          word_end = i + c.length;
          word_high |= c.length > 1;
        } else {
          flush();
          bool invalid = false;
          Emit(text.substr(i, c.length), false, c.length > 1, &invalid, sink);
        }
        break;
      }
    }
    i += c.length;
  }
  flush();
  return first_invalid;
}

size_t Tokenizer::TokenizeIcu(std::string_view text, bool skip_partial_token, TokenSink* sink) {
  size_t first_invalid = std::string_view::npos;
  const auto emit = [&](size_t begin, size_t end) {
    bool invalid = false, high = false;
    for (size_t k = begin; k < end && !high; ++k)
      high = static_cast<unsigned char>(text[k]) >= 0x80;
    Emit(text.substr(begin, end - begin), false, high, &invalid, sink);
    if (invalid && first_invalid == std::string_view::npos) first_invalid = begin;
  };
  size_t line = skip_partial_token ? FirstSafeCut(text, TokenizerKind::kIcu) : 0;
  // Line by line: a newline ends a document, and ICU's rules would keep a
  // CR LF pair together.
  while (line < text.size()) {
    const size_t newline = text.find('\n', line);
    const size_t line_end = newline == std::string_view::npos ? text.size() : newline;
    icu_->Segment(text.substr(line, line_end - line), &segments_);
    for (const WordSegment& s : segments_) {
      const size_t begin = line + s.begin, end = line + s.end;
      if (s.word) {
        emit(begin, end);
        continue;
      }
      for (size_t i = begin; i < end;) {  // spaces are dropped, anything else is a token
        const CodePoint c = DecodeAt(text, i);
        if (c.cls != CharClass::kSpace) emit(i, i + c.length);
        i += c.length;
      }
    }
    if (newline == std::string_view::npos) break;
    sink->OnDocumentEnd();
    line = newline + 1;
  }
  return first_invalid;
}

}  // namespace streamglove
