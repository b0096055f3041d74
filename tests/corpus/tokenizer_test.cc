#include "streamglove/tokenizer.h"

#include <catch2/catch.hpp>

#include "test_util.h"

using namespace streamglove;
using namespace streamglove::test;

namespace {

std::vector<std::string> Tokens(std::string_view text, TokenizerKind kind = TokenizerKind::kWhitespace,
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

TEST_CASE("Whitespace tokenizer drops carriage returns and cuts long tokens like GloVe", "[corpus]") {
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
  CHECK(Tokens("Hello, world! Don't re-read 3.14 or 1,000 «quotes»", TokenizerKind::kWords) ==
        V{"Hello", ",", "world", "!", "Don't", "re-read", "3.14", "or", "1,000", "«", "quotes", "»"});
  CHECK(Tokens("end. 'quoted' -dash a.b x,y\nnext", TokenizerKind::kWords) ==
        V{"end", ".", "'", "quoted", "'", "-", "dash", "a", ".", "b", "x", ",", "y", kDocEnd, "next"});
  CHECK(Tokens("日本語のテキスト。東京", TokenizerKind::kWords) == V{"日本語のテキスト", "。", "東京"});
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
