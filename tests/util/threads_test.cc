#include "util/threads.h"

#include <catch2/catch.hpp>

using namespace streamglove;

TEST_CASE("ResolveThreads and CheckThreads: one rule for every stage", "[util]") {
  CHECK(ResolveThreads(3) == 3);
  CHECK(ResolveThreads(0) == AvailableCores());
  CHECK(AvailableCores() >= 1);
  CHECK(CheckThreads(0).ok());
  CHECK(CheckThreads(kMaxThreads).ok());
  CHECK_FALSE(CheckThreads(-1).ok());
  CHECK_FALSE(CheckThreads(kMaxThreads + 1).ok());
}
