#include "corpus/chunk_tokenizer.h"

#include <simdjson.h>

#include <cstring>

#include <fmt/format.h>

#include "corpus/phrase_joiner.h"
#include "corpus/utf8.h"

namespace streamglove {

namespace {

// What makes a text line bad, at which offset of `line`; empty when good.
// `cut_front`/`cut_back`: the chunk was cut there inside a token, maybe inside
// a UTF-8 sequence, whose pieces are not errors.
std::string LineProblem(std::string_view line, bool cut_front, bool cut_back, size_t* at) {
  const void* nul = std::memchr(line.data(), 0, line.size());
  size_t front = 0;
  if (cut_front) {
    while (front < line.size() && front < 3 && IsUtf8Continuation(line[front])) ++front;
  }
  std::string_view body = line.substr(front);
  if (cut_back) {
    // Drop a last sequence that the cut left incomplete.
    size_t back = body.size(), seen = 0;
    while (back > 0 && seen < 3 && IsUtf8Continuation(body[back - 1])) --back, ++seen;
    if (back > 0 && static_cast<unsigned char>(body[back - 1]) >= 0xC0)
      body = body.substr(0, back - 1);
  }
  // simdjson's validator first: the usual case, a valid chunk, costs little.
  const size_t invalid = simdjson::validate_utf8(body.data(), body.size())
                             ? std::string_view::npos
                             : front + FirstInvalidUtf8(body);
  const size_t nul_at = nul ? static_cast<size_t>(static_cast<const char*>(nul) - line.data())
                            : std::string_view::npos;
  if (nul_at == std::string_view::npos && invalid == std::string_view::npos) return "";
  *at = std::min(nul_at, invalid);
  return nul_at < invalid ? "NUL byte" : "invalid UTF-8";
}

}  // namespace

ChunkTokenizer::ChunkTokenizer(const CorpusOptions& options, const std::vector<InputFile>* inputs)
    : inputs_(inputs),
      skip_bad_records_(options.skip_bad_records),
      phrases_(options.phrases != nullptr && !options.phrases->empty() ? options.phrases : nullptr),
      tokenizer_(options),
      json_(options.json_field) {}

Status ChunkTokenizer::BadRecord(const Chunk& chunk, uint64_t offset, const std::string& reason) {
  const std::string& path = (*inputs_)[chunk.input].path;
  if (!skip_bad_records_) {
    return Status::Corruption(
        fmt::format("{}: byte {}: {} (a bad record: --skip-bad-records skips and counts them)",
                    path, chunk.offset + offset, reason));
  }
  ++bad_records_;
  const CorpusLocation here{chunk.input, chunk.offset + offset};
  if (here < first_bad_) {
    first_bad_ = here;
    first_bad_reason_ = fmt::format("{}: byte {}: {}", path, here.offset, reason);
  }
  return Status::OK();
}

Status ChunkTokenizer::Tokenize(const Chunk& chunk, TokenSink* sink) {
  if (phrases_ == nullptr) return TokenizeFormat(chunk, sink);
  PhraseJoiner joiner(phrases_.get(), sink);
  const Status s = TokenizeFormat(chunk, &joiner);
  joiner.Flush();
  return s;
}

Status ChunkTokenizer::TokenizeFormat(const Chunk& chunk, TokenSink* sink) {
  switch (chunk.format) {
    case InputFormat::kJsonl:
      return TokenizeJsonl(chunk, sink);
    case InputFormat::kWet:
      return TokenizeWet(chunk, sink);
    default:
      return TokenizeText(chunk, sink);
  }
}

Status ChunkTokenizer::TokenizeText(const Chunk& chunk, TokenSink* sink) {
  const std::string_view text = chunk.text();
  const bool ends_line = text.empty() || text.back() == '\n';
  const bool cut_back = !ends_line && !chunk.ends_input;
  size_t at = 0;
  // The common case: one pass over the whole chunk finds nothing wrong.
  if (LineProblem(text, chunk.starts_in_token, cut_back, &at).empty()) {
    tokenizer_.Tokenize(text, chunk.starts_in_token, sink);
    if (chunk.ends_input && !ends_line) sink->OnDocumentEnd();
    return Status::OK();
  }
  // Line by line: the bad lines fail the chunk (before anything is emitted)
  // or are left out.
  std::vector<std::string_view> good;
  size_t pos = 0;
  while (pos < text.size()) {
    const void* nl = std::memchr(text.data() + pos, '\n', text.size() - pos);
    const size_t end = nl ? static_cast<const char*>(nl) - text.data() + 1 : text.size();
    const std::string_view line = text.substr(pos, end - pos);
    const std::string problem =
        LineProblem(line, pos == 0 && chunk.starts_in_token, end == text.size() && cut_back, &at);
    if (problem.empty()) {
      good.push_back(line);
    } else {
      SG_RETURN_IF_ERROR(BadRecord(chunk, pos + at, problem));
    }
    pos = end;
  }
  for (const std::string_view line : good) {
    tokenizer_.Tokenize(line, chunk.starts_in_token && line.data() == text.data(), sink);
  }
  if (chunk.ends_input && !ends_line) sink->OnDocumentEnd();
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
        SG_RETURN_IF_ERROR(BadRecord(chunk, pos, error));
      } else {
        tokenizer_.Tokenize(field, false, sink);
        sink->OnDocumentEnd();
      }
    }
    pos = end + 1;
  }
  return Status::OK();
}

Status ChunkTokenizer::TokenizeWet(const Chunk& chunk, TokenSink* sink) {
  const std::string_view text = chunk.text();
  for (const WarcRecord& record : chunk.warc_records) {
    if (!record.problem.empty()) {
      SG_RETURN_IF_ERROR(BadRecord(chunk, record.begin, record.problem));
      continue;
    }
    if (!record.text) continue;  // warcinfo, metadata: no page text
    const std::string_view page = text.substr(record.body_begin, record.body_size);
    size_t at = 0;
    if (const std::string problem = LineProblem(page, false, false, &at); !problem.empty()) {
      SG_RETURN_IF_ERROR(BadRecord(chunk, record.body_begin + at, problem));
      continue;
    }
    tokenizer_.Tokenize(page, false, sink);
    sink->OnDocumentEnd();
  }
  return Status::OK();
}

}  // namespace streamglove
