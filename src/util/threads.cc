#include "util/threads.h"

#include <sched.h>

#include <algorithm>

#include <fmt/format.h>

namespace streamglove {

int AvailableCores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return 1;
  return std::max(1, CPU_COUNT(&set));
}

int ResolveThreads(int requested) { return requested > 0 ? requested : AvailableCores(); }

Status CheckThreads(int requested) {
  if (requested < 0 || requested > kMaxThreads) {
    return Status::InvalidArgument(
        fmt::format("--threads must be between 0 (all cores) and {}", kMaxThreads));
  }
  return Status::OK();
}

}  // namespace streamglove
