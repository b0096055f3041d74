#include "streamglove/options.h"

#include <fmt/format.h>

#include "corpus/icu_word_breaker.h"
#include "streamglove/units.h"
#include "util/threads.h"

namespace streamglove {

Status ValidateCorpusOptions(const CorpusOptions& options) {
  if (options.json_field.empty()) return Status::InvalidArgument("--json-field must not be empty");
  if (options.chunk_bytes < 4096)
    return Status::InvalidArgument("chunk size must be at least 4 KiB");
  if (options.max_record_bytes < options.chunk_bytes) {
    return Status::InvalidArgument("the record size limit must be at least the chunk size");
  }
  if (options.tokenizer == TokenizerKind::kIcu) return CheckIcuWordRules();
  return Status::OK();
}

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
