// ValidateVocabOptions (streamglove/options.h).
#include <fmt/format.h>

#include "streamglove/options.h"
#include "streamglove/units.h"
#include "util/threads.h"

namespace streamglove {

Status ValidateVocabOptions(const VocabOptions& options) {
  if (options.min_count < 1) return Status::InvalidArgument("--min-count must be at least 1");
  SG_RETURN_IF_ERROR(CheckThreads(options.threads));
  if (options.memory_bytes < kMinMemoryBytes) {
    return Status::InvalidArgument(fmt::format("--memory must be at least {}",
                                               FormatBytes(static_cast<double>(kMinMemoryBytes))));
  }
  return Status::OK();
}

}  // namespace streamglove
