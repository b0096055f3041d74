// JsonlField: the text of one string field of a JSONL record.
//
// Each record is parsed and validated whole (simdjson's DOM parser), so a
// malformed record is reported even when the field comes first.
//
// Thread-safety: holds a parser; use one per thread.
#ifndef STREAMGLOVE_CORPUS_JSONL_FIELD_H_
#define STREAMGLOVE_CORPUS_JSONL_FIELD_H_

#include <memory>
#include <string>
#include <string_view>

namespace streamglove {

class JsonlField {
 public:
  explicit JsonlField(std::string field);
  ~JsonlField();

  // Parses `record` and sets *text to the field's unescaped value, valid until
  // the next call. On failure (a value holding U+0000 included) returns false
  // and sets *error to why.
  // REQUIRES: at least kChunkPadding readable bytes follow `record`.
  bool Extract(std::string_view record, std::string_view* text, std::string* error);

 private:
  // simdjson stays out of this header: its class layouts depend on its own
  // compile definitions, which only this library's sources see.
  struct Parser;
  const std::string field_;
  std::unique_ptr<Parser> parser_;
};

}  // namespace streamglove

#endif  // STREAMGLOVE_CORPUS_JSONL_FIELD_H_
