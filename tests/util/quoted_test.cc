#include "util/quoted.h"

#include <string>

#include <catch2/catch.hpp>

using namespace streamglove;

TEST_CASE("Quoted keeps a message one bounded printable line", "[util]") {
  CHECK(Quoted("the") == "'the'");
  CHECK(Quoted("naïve 東京") == "'naïve 東京'");
  CHECK(Quoted("a\nb\x1b[31m\\") == "'a\\x0ab\\x1b[31m\\\\'");
  CHECK(Quoted(std::string("p\0q", 3)) == "'p\\x00q'");
  // Bytes that are not UTF-8: a lone continuation, a cut sequence, 0xff.
  CHECK(Quoted("\x80x\xe6\x9d\xff") == "'\\x80x\\xe6\\x9d\\xff'");
  // Long text is cut at a character's start and says how long it was.
  const std::string long_word(10000, 'w');
  CHECK(Quoted(long_word) == "'" + std::string(48, 'w') + "'... (10000 bytes)");
  CHECK(Quoted("ab東京", 3) == "'ab東'... (8 bytes)");
  CHECK(Quoted("ab東京", 4) == "'ab東'... (8 bytes)");
  // Whatever the bytes, the quote has no control byte and a bounded size.
  std::string all;
  for (int c = 0; c < 256; ++c) all += static_cast<char>(c);
  const std::string q = Quoted(all, 1000);
  for (const char c : q) CHECK(static_cast<unsigned char>(c) >= 0x20);
  CHECK(Quoted(all + all + all + all).size() <= 48 * 4 + 24);
}
