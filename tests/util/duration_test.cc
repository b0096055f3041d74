#include <catch2/catch.hpp>

#include "streamglove/units.h"

using namespace streamglove;

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
