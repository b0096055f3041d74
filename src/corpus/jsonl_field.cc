#include "corpus/jsonl_field.h"

#include <simdjson.h>

#include <fmt/format.h>

#include "streamglove/corpus_reader.h"

namespace streamglove {

static_assert(kChunkPadding >= simdjson::SIMDJSON_PADDING, "chunks must be padded for simdjson");

// Behind a pointer so that simdjson's header stays out of jsonl_field.h.
struct JsonlField::Parser {
  simdjson::dom::parser dom;
};

JsonlField::JsonlField(std::string field)
    : field_(std::move(field)), parser_(std::make_unique<Parser>()) {}

JsonlField::~JsonlField() = default;

bool JsonlField::Extract(std::string_view record, std::string_view* text, std::string* error) {
  simdjson::dom::element doc;
  // The record sits in a chunk padded for simdjson (the static_assert above),
  // so it is parsed in place, never copied.
  if (auto e =
          parser_->dom.parse(record.data(), record.size(), /*realloc_if_needed=*/false).get(doc)) {
    *error = fmt::format("malformed JSON record ({})", simdjson::error_message(e));
    return false;
  }
  simdjson::dom::object object;
  if (doc.get_object().get(object)) {
    *error = "JSON record is not an object";
    return false;
  }
  simdjson::dom::element value;
  if (object.at_key(field_).get(value)) {
    *error = fmt::format("JSON record has no field \"{}\"", field_);
    return false;
  }
  if (value.get_string().get(*text)) {
    *error = fmt::format("JSON field \"{}\" is not a string", field_);
    return false;
  }
  // An escaped NUL is the raw NUL byte that text input refuses: inside a
  // word it would cut the word short for C readers of the vocabulary.
  if (text->find('\0') != std::string_view::npos) {
    *error = fmt::format("JSON field \"{}\" holds a NUL character (\\u0000)", field_);
    return false;
  }
  return true;
}

}  // namespace streamglove
