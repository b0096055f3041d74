// ValidateCorpusOptions (streamglove/options.h).
#include "corpus/icu_word_breaker.h"
#include "streamglove/options.h"

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

}  // namespace streamglove
