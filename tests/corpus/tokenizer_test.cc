#include "streamglove/tokenizer.h"

#include <utf8proc.h>

#include <catch2/catch.hpp>

#include "test_util.h"

using namespace streamglove;
using namespace streamglove::test;

namespace {

std::vector<std::string> Tokens(std::string_view text,
                                TokenizerKind kind = TokenizerKind::kWhitespace,
                                bool lowercase = false) {
  CorpusOptions options;
  options.tokenizer = kind;
  options.lowercase = lowercase;
  Tokenizer tokenizer(options);
  TokenCollector sink;
  tokenizer.Tokenize(text, false, &sink);
  return sink.out;
}

using V = std::vector<std::string>;

}  // namespace

TEST_CASE("Whitespace tokenizer equals Stanford GloVe's get_word on random text", "[corpus]") {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    const std::string text = RandomText(&rng, 1 + rng() % 20000);
    INFO("trial " << trial);
    REQUIRE(Tokens(text) == ReferenceTokens(text));
  }
}

TEST_CASE("Whitespace tokenizer drops carriage returns and cuts long tokens like GloVe",
          "[corpus]") {
  CHECK(Tokens("a\rb c\r\nd \r e") == V{"ab", "c", kDocEnd, "d", "e"});
  const std::string longword = std::string(998, 'x') + "é" + "tail";  // é straddles byte 999
  const auto t = Tokens(longword);
  REQUIRE(t.size() == 1);
  CHECK(t[0] == std::string(998, 'x'));
  CHECK(TruncateTokenLength(std::string(997, 'x') + "€") == 997);  // 3-byte char cut after 2
  CHECK(TruncateTokenLength(std::string(999, 'x')) == 999);
}

TEST_CASE("Lowercasing is Unicode-aware", "[corpus]") {
  CHECK(Tokens("ÀÉÎ ΣΑΣ Straße KÖLN Ǆ", TokenizerKind::kWhitespace, true) ==
        V{"àéî", "σασ", "straße", "köln", "ǆ"});
  // Invalid bytes pass through unchanged.
  CHECK(Tokens("AB\xFF", TokenizerKind::kWhitespace, true) == V{"ab\xFF"});
}

TEST_CASE("Words tokenizer splits punctuation from words but keeps inner connectors", "[corpus]") {
  CHECK(
      Tokens("Hello, world! Don't re-read 3.14 or 1,000 «quotes»", TokenizerKind::kWords) ==
      V{"Hello", ",", "world", "!", "Don't", "re-read", "3.14", "or", "1,000", "«", "quotes", "»"});
  CHECK(Tokens("end. 'quoted' -dash a.b x,y\nnext", TokenizerKind::kWords) ==
        V{"end", ".", "'", "quoted", "'", "-", "dash", "a", ".", "b", "x", ",", "y", kDocEnd,
          "next"});
  CHECK(Tokens("日本語のテキスト。東京", TokenizerKind::kWords) ==
        V{"日本語のテキスト", "。", "東京"});
  CHECK(Tokens("Café\u00A0Noël", TokenizerKind::kWords, true) == V{"café", "noël"});
}

TEST_CASE("Invalid UTF-8 is counted and located and never fatal", "[corpus]") {
  CorpusOptions options;
  Tokenizer tokenizer(options);
  TokenCollector sink;
  const std::string text = "good caf\xC3 \xFF\xFE ok \xED\xA0\x80 \xC0\xAF fine é";
  const size_t first = tokenizer.Tokenize(text, false, &sink);
  CHECK(first == 5);
  CHECK(tokenizer.stats().invalid_utf8_tokens == 4);  // truncated, bad bytes, surrogate, overlong
  CHECK(tokenizer.stats().tokens == 8);
}

TEST_CASE("skip_partial_token drops the tail of a token cut between chunks", "[corpus]") {
  CorpusOptions options;
  Tokenizer tokenizer(options);
  TokenCollector sink;
  tokenizer.Tokenize("tail-of-token next\tword", true, &sink);
  CHECK(sink.out == V{"next", "word"});
}

TEST_CASE("LastSafeCut never cuts before a sequence that the text's end cuts short", "[corpus]") {
  // "4." then U+07C0 (an NKO digit, so "4.߀" is one number) whose second
  // byte is not read yet: cutting after the '.' would split the number
  // (found by tests/fuzz/tokenizer_fuzz).
  const std::string text = "x 4.\xdf\x80s\n";
  for (size_t end = 1; end <= text.size(); ++end) {
    const size_t cut = LastSafeCut(std::string_view(text).substr(0, end), TokenizerKind::kWords);
    INFO("prefix of " << end << " bytes, cut " << cut);
    CHECK(cut != 4);
    V split = Tokens(text.substr(0, cut), TokenizerKind::kWords);
    for (const std::string& t : Tokens(text.substr(cut), TokenizerKind::kWords)) split.push_back(t);
    CHECK(split == Tokens(text, TokenizerKind::kWords));
  }
}

TEST_CASE("ICU tokenizer segments Chinese, Japanese and Thai as references say", "[corpus]") {
  // References: the segmentation a reader of each language gives (checked by
  // hand); ICU's dictionaries agree on these sentences.
  CHECK(Tokens("我爱北京天安门。", TokenizerKind::kIcu) == V{"我", "爱", "北京", "天安门", "。"});
  CHECK(Tokens("我们明天去上海。", TokenizerKind::kIcu) == V{"我们", "明天", "去", "上海", "。"});
  CHECK(Tokens("私は東京に行きます。", TokenizerKind::kIcu) ==
        V{"私", "は", "東京", "に", "行き", "ます", "。"});
  CHECK(Tokens("今日は天気がいいです。", TokenizerKind::kIcu) ==
        V{"今日", "は", "天気", "が", "いい", "です", "。"});
  CHECK(Tokens("ผมชอบกินข้าวผัด", TokenizerKind::kIcu) == V{"ผม", "ชอบ", "กิน", "ข้าว", "ผัด"});
  CHECK(Tokens("ภาษาไทยง่ายนิดเดียว", TokenizerKind::kIcu) == V{"ภาษา", "ไทย", "ง่าย", "นิด", "เดียว"});
  // The words tokenizer keeps each of those runs whole.
  CHECK(Tokens("我爱北京天安门。", TokenizerKind::kWords) == V{"我爱北京天安门", "。"});
}

TEST_CASE("ICU tokenizer on spaced scripts: words, punctuation, documents, case", "[corpus]") {
  CHECK(Tokens("Hello, world! Don't stop 3.14\r\nnext  line\tÉTÉ", TokenizerKind::kIcu, true) ==
        V{"hello", ",", "world", "!", "don't", "stop", "3.14", kDocEnd, "next", "line", "été"});
  // Where ICU's rules differ from the words tokenizer's: hyphens split,
  // letters around a period join (UAX #29, rules WB6/WB7).
  CHECK(Tokens("well-known e.g", TokenizerKind::kIcu) == V{"well", "-", "known", "e.g"});
  // An invalid byte is read as U+FFFD: a token of its own, counted.
  CorpusOptions options;
  options.tokenizer = TokenizerKind::kIcu;
  Tokenizer tokenizer(options);
  TokenCollector sink;
  CHECK(tokenizer.Tokenize("ab\xFF"
                           "cd ok",
                           false, &sink) == 2);
  CHECK(sink.out == V{"ab", "\xFF", "cd", "ok"});
  CHECK(tokenizer.stats().invalid_utf8_tokens == 1);
}

TEST_CASE("ICU tokenizer: a line cut at LastSafeCut tokenizes as the whole", "[corpus]") {
  // No ASCII space in the Chinese and Japanese: cuts fall after ideographic
  // punctuation or an ideographic space.
  const std::string text =
      "我们明天去上海。我爱北京天安门，私は東京に行きます。　今日は天気がいいです。"
      "ผมชอบกินข้าวผัด ภาษาไทยง่ายนิดเดียว Hello, world";
  const V whole = Tokens(text, TokenizerKind::kIcu);
  size_t cuts = 0;
  for (size_t end = 1; end <= text.size(); ++end) {
    const size_t cut = LastSafeCut(std::string_view(text).substr(0, end), TokenizerKind::kIcu);
    INFO("prefix of " << end << " bytes, cut " << cut);
    if (cut == 0) continue;
    ++cuts;
    V split = Tokens(text.substr(0, cut), TokenizerKind::kIcu);
    for (const std::string& t : Tokens(text.substr(cut), TokenizerKind::kIcu)) split.push_back(t);
    CHECK(split == whole);
  }
  CHECK(cuts > 0);
  // The first safe place: after the first ideographic full stop.
  CHECK(FirstSafeCut(text, TokenizerKind::kIcu) == std::string("我们明天去上海。").size());
}

TEST_CASE(
    "ICU tokenizer: no space or punctuation mark is a cut where ICU's word rules join across it",
    "[corpus]") {
  // U+202F (narrow no-break space) is a space separator (Zs) whose
  // Word_Break is ExtendNumLet, and U+FF0E (fullwidth full stop) an
  // ideographic punctuation mark whose Word_Break is MidNumLet: ICU joins
  // "a\u202F1" and "r\uFF0Ea" into one word, so neither is a safe cut (both
  // found by tests/fuzz). Every Zs character and every code point of the
  // ideographic punctuation blocks, between letters, digits and both.
  std::vector<std::string> marks = {"\u00A0", "\u1680", "\u2000", "\u2005",
                                    "\u200A", "\u202F", "\u205F"};
  for (const auto& [first, last] : {std::pair<char32_t, char32_t>{0x3000, 0x303F},
                                    std::pair<char32_t, char32_t>{0xFF01, 0xFF65}}) {
    for (char32_t cp = first; cp <= last; ++cp) {
      utf8proc_uint8_t utf8[4];
      const utf8proc_ssize_t n = utf8proc_encode_char(static_cast<utf8proc_int32_t>(cp), utf8);
      marks.emplace_back(reinterpret_cast<const char*>(utf8), static_cast<size_t>(n));
    }
  }
  for (const std::string& mark : marks) {
    for (const char* left : {"stype", "12"}) {
      for (const char* right : {"1", "word"}) {
        const std::string text = std::string("go ") + left + mark + right + " end";
        const V whole = Tokens(text, TokenizerKind::kIcu);
        for (size_t end = 1; end <= text.size(); ++end) {
          const size_t cut =
              LastSafeCut(std::string_view(text).substr(0, end), TokenizerKind::kIcu);
          if (cut == 0) continue;
          V split = Tokens(text.substr(0, cut), TokenizerKind::kIcu);
          for (const std::string& t : Tokens(text.substr(cut), TokenizerKind::kIcu))
            split.push_back(t);
          INFO("text '" << text << "', cut at " << cut);
          CHECK(split == whole);
        }
      }
    }
  }
}
