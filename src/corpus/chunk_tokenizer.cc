#include "corpus/chunk_tokenizer.h"

#include <cstring>

#include <fmt/format.h>

namespace streamglove {

ChunkTokenizer::ChunkTokenizer(const CorpusOptions& options, const std::vector<InputFile>* inputs)
    : inputs_(inputs), tokenizer_(options), json_(options.json_field) {}

void ChunkTokenizer::NoteInvalid(uint32_t input, uint64_t offset) {
  const CorpusLocation here{input, offset};
  if (here < first_invalid_utf8_) first_invalid_utf8_ = here;
}

Status ChunkTokenizer::Tokenize(const Chunk& chunk, TokenSink* sink) {
  if ((*inputs_)[chunk.input].jsonl) return TokenizeJsonl(chunk, sink);
  const std::string_view text = chunk.text();
  const size_t invalid = tokenizer_.Tokenize(text, chunk.starts_in_token, sink);
  if (invalid != std::string_view::npos) NoteInvalid(chunk.input, chunk.offset + invalid);
  if (chunk.ends_input && !text.empty() && text.back() != '\n') sink->OnDocumentEnd();
  return Status::OK();
}

Status ChunkTokenizer::TokenizeJsonl(const Chunk& chunk, TokenSink* sink) {
  const std::string_view text = chunk.text();
  std::string error;
  size_t pos = 0;
  while (pos < text.size()) {
    const void* nl = std::memchr(text.data() + pos, '\n', text.size() - pos);
    const size_t end = nl ? static_cast<const char*>(nl) - text.data() : text.size();
    const std::string_view record = text.substr(pos, end - pos);
    if (record.find_first_not_of(" \t\r") != std::string_view::npos) {
      std::string_view field;
      if (!json_.Extract(record, &field, &error)) {
        return Status::Corruption(fmt::format("{}: byte {}: {}", (*inputs_)[chunk.input].path,
                                              chunk.offset + pos, error));
      }
      if (tokenizer_.Tokenize(field, false, sink) != std::string_view::npos) {
        NoteInvalid(chunk.input, chunk.offset + pos);
      }
      sink->OnDocumentEnd();
    }
    pos = end + 1;
  }
  return Status::OK();
}

}  // namespace streamglove
