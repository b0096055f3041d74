// The unit tests' main: Catch2's, after allowing oneTBB as many threads as
// the tests ask for, as the streamglove binary does (src/cli/main.cc):
// otherwise an arena of more threads than the machine's cores runs on the
// cores (the tests of 3 and 16 threads would not run them on 2 cores), and
// oneTBB says so on stderr.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <tbb/global_control.h>

#include "streamglove/options.h"

int main(int argc, char** argv) {
  const tbb::global_control threads_above_cores(tbb::global_control::max_allowed_parallelism,
                                                streamglove::kMaxThreads);
  return Catch::Session().run(argc, argv);
}
