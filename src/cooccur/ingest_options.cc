// ValidateIngestOptions (streamglove/ingest.h).
#include <fmt/format.h>

#include "cooccur/fixed_point.h"
#include "streamglove/ingest.h"
#include "streamglove/units.h"
#include "util/threads.h"

namespace streamglove {

Status ValidateIngestOptions(const IngestOptions& options) {
  if (options.window < 1 || options.window > kMaxWindow) {
    return Status::InvalidArgument(fmt::format("--window must be between 1 and {}", kMaxWindow));
  }
  if (options.min_count < 1) return Status::InvalidArgument("--min-count must be at least 1");
  if (!(options.subsample >= 0 && options.subsample < 1)) {
    return Status::InvalidArgument("--subsample must be at least 0 and below 1");
  }
  SG_RETURN_IF_ERROR(CheckThreads(options.threads));
  if (options.memory_bytes < kMinMemoryBytes) {
    return Status::InvalidArgument(fmt::format("--memory must be at least {}",
                                               FormatBytes(static_cast<double>(kMinMemoryBytes))));
  }
  // A cell gains at most 2 * scale * H(W) units per token (W = 20, a text of
  // one repeated word): 64-bit sums hold about 1.1e10 such tokens, so a
  // batch of 16 GiB of text cannot overflow before its commit checks.
  if (options.batch_bytes < (uint64_t{1} << 16) || options.batch_bytes > (uint64_t{16} << 30)) {
    return Status::InvalidArgument("--batch-size must be between 64K and 16G");
  }
  return Status::OK();
}

}  // namespace streamglove
