#include "streamglove/units.h"

#include <catch2/catch.hpp>

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

TEST_CASE("ParseDuration sums number-unit terms", "[util]") {
  double s = 0;
  REQUIRE(ParseDuration("600", &s).ok());
  CHECK(s == 600);
  REQUIRE(ParseDuration("90s", &s).ok());
  CHECK(s == 90);
  REQUIRE(ParseDuration("10m", &s).ok());
  CHECK(s == 600);
  REQUIRE(ParseDuration("1h30m", &s).ok());
  CHECK(s == 5400);
  REQUIRE(ParseDuration("1.5h", &s).ok());
  CHECK(s == 5400);
  REQUIRE(ParseDuration("2d", &s).ok());
  CHECK(s == 172800);
}

TEST_CASE("ParseDuration rejects malformed durations", "[util]") {
  double s = 0;
  for (const char* bad : {"", "m", "10x", "-5m", "0", "0s", "1m30", "nan", "10 m", "1e12"}) {
    INFO(bad);
    CHECK_FALSE(ParseDuration(bad, &s).ok());
  }
}

TEST_CASE("FormatDuration reads as people write durations", "[util]") {
  CHECK(FormatDuration(45.24) == "45.2 s");
  CHECK(FormatDuration(581) == "9m 41s");
  CHECK(FormatDuration(7500) == "2h 05m");
}
