// JSONL field extraction on arbitrary records (padded as chunks are).
#include <cstdint>
#include <string>

#include "corpus/jsonl_field.h"
#include "streamglove/corpus_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace streamglove;
  static JsonlField field("text");
  std::string buffer(reinterpret_cast<const char*>(data), size);
  buffer.append(kChunkPadding, '\0');
  std::string_view text;
  std::string error;
  if (field.Extract(std::string_view(buffer.data(), size), &text, &error)) {
    // The field's bytes lie in the parser's buffer or the record: readable.
    volatile char sink = 0;
    for (char c : text) sink = static_cast<char>(sink ^ c);
  } else if (error.empty()) {
    __builtin_trap();  // a failure always says why
  }
  return 0;
}
