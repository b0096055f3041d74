#include <catch2/catch.hpp>

#include "streamglove/units.h"

using namespace streamglove;

TEST_CASE("ParseByteSize accepts binary units", "[util]") {
  size_t n = 0;
  REQUIRE(ParseByteSize("4096", &n).ok());
  CHECK(n == 4096);
  REQUIRE(ParseByteSize("512M", &n).ok());
  CHECK(n == size_t{512} << 20);
  REQUIRE(ParseByteSize("1G", &n).ok());
  CHECK(n == size_t{1} << 30);
  REQUIRE(ParseByteSize("1.5GiB", &n).ok());
  CHECK(n == (size_t{3} << 29));
  REQUIRE(ParseByteSize("64kb", &n).ok());
  CHECK(n == 64 * 1024);
}

TEST_CASE("ParseByteSize rejects malformed sizes", "[util]") {
  size_t n = 0;
  for (const char* bad : {"", "G", "12X", "-1M", "1GG", "nan"}) {
    INFO(bad);
    CHECK_FALSE(ParseByteSize(bad, &n).ok());
  }
}

TEST_CASE("FormatByteSize writes what ParseByteSize reads back", "[util]") {
  CHECK(FormatByteSize(size_t{1} << 30) == "1G");
  CHECK(FormatByteSize(size_t{256} << 20) == "256M");
  CHECK(FormatByteSize(size_t{3} << 40) == "3T");
  CHECK(FormatByteSize(1536) == "1536");
  CHECK(FormatByteSize(0) == "0");
  for (uint64_t bytes : {uint64_t{1} << 30, uint64_t{4097}, uint64_t{5} << 20, uint64_t{7} << 10}) {
    size_t parsed = 0;
    REQUIRE(ParseByteSize(FormatByteSize(bytes), &parsed).ok());
    CHECK(parsed == bytes);
  }
}
