#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "corpus/warc_record.h"
#include "streamglove/corpus_reader.h"
#include "streamglove/tokenizer.h"
#include "util/byte_source.h"

namespace streamglove {

namespace {
// A token cut between chunks must already be past the token length limit, even
// after lowercasing shrinks it (at most 3 bytes to 1): 4 KiB > 3 * 999.
constexpr size_t kMinChunkBytes = 4096;
constexpr size_t kEndProbeBytes = size_t{64} << 10;
constexpr std::string_view kWarcVersionPrefix = "WARC/1.";
static_assert(kMinChunkBytes > 3 * kMaxTokenBytes);

CorpusOptions WithChunkFloor(CorpusOptions options) {
  options.chunk_bytes = std::max(options.chunk_bytes, kMinChunkBytes);
  return options;
}
}  // namespace

ChunkReader::ChunkReader(std::vector<InputFile> inputs, const CorpusOptions& options)
    : inputs_(std::move(inputs)), options_(WithChunkFloor(options)), starts_(inputs_.size()) {
  for (const InputFile& in : inputs_) bytes_total_ += in.size;
}

ChunkReader::~ChunkReader() = default;

uint64_t ChunkReader::bytes_consumed() const {
  return bytes_finished_ + (source_ ? source_->file_position() : 0);
}

Status ChunkReader::OpenInput() {
  SG_RETURN_IF_ERROR(OpenByteSource(inputs_[next_input_].path, &source_));
  source_eof_ = false;
  chunk_returned_ = false;
  offset_ = 0;
  line_start_ = 0;
  carry_.clear();
  carry_continues_line_ = carry_starts_in_token_ = false;
  format_ = inputs_[next_input_].format;
  if (options_.format == InputFormat::kAuto && format_ == InputFormat::kText) {
    // A WET file by content, whatever its name: its first line opens a WARC
    // record. The bytes read to see it stay in carry_, read first.
    carry_.resize(kWarcVersionPrefix.size());
    size_t filled = 0;
    while (filled < carry_.size()) {
      size_t got = 0;
      SG_RETURN_IF_ERROR(source_->Read(carry_.data() + filled, carry_.size() - filled, &got));
      if (got == 0) break;
      filled += got;
    }
    carry_.resize(filled);
    if (carry_ == kWarcVersionPrefix) format_ = InputFormat::kWet;
  }
  const Position& start_at = starts_[next_input_];
  if (start_at.offset > 0) {
    // Resuming: skip what an earlier run already read (first what carry_ holds).
    const size_t held = std::min<uint64_t>(carry_.size(), start_at.offset);
    carry_.erase(0, held);
    offset_ = held;
    std::string skip(std::min<uint64_t>(start_at.offset, size_t{1} << 20), '\0');
    while (offset_ < start_at.offset) {
      size_t got = 0;
      const size_t want = std::min<uint64_t>(skip.size(), start_at.offset - offset_);
      SG_RETURN_IF_ERROR(source_->Read(skip.data(), want, &got));
      if (got == 0) {
        return Status::InvalidArgument(fmt::format(
            "{}: byte {}: input ends before the resume point (byte {}); was it changed?",
            inputs_[next_input_].path, offset_, start_at.offset));
      }
      offset_ += got;
    }
    carry_continues_line_ = start_at.continues_line;
    carry_starts_in_token_ = start_at.starts_in_token;
    line_start_ = offset_;  // a resumed line is measured from here
  }
  return Status::OK();
}

Status ChunkReader::Next(Chunk* chunk, bool* done) {
  for (;;) {
    if (!source_) {
      if (next_input_ == inputs_.size()) {
        *done = true;
        return Status::OK();
      }
      SG_RETURN_IF_ERROR(OpenInput());
    }
    SG_RETURN_IF_ERROR(FillChunk(chunk));
    // An input started past its beginning (a file that grew) whose rest is
    // empty still ends in a chunk, so that its end is recorded.
    if (chunk->size_ > 0 || (!chunk_returned_ && starts_[next_input_].offset > 0)) {
      chunk_returned_ = true;
      *done = false;
      return Status::OK();
    }
    if (offset_ == 0) {
      return Status::InvalidArgument(
          fmt::format("{}: byte 0: empty input (no text to read)", inputs_[next_input_].path));
    }
    bytes_finished_ += source_->file_position();
    source_.reset();
    ++next_input_;
  }
}

size_t ChunkReader::CutWarcRecords(Chunk* chunk, bool at_end) const {
  chunk->warc_records.clear();
  const std::string_view bytes(chunk->buffer_.data(), chunk->size_);
  size_t pos = 0;
  WarcRecord record;
  while (pos < bytes.size() && ScanWarcRecord(bytes, pos, at_end, options_.max_record_bytes,
                                              &record) == WarcScan::kRecord) {
    pos = record.end;
    chunk->warc_records.push_back(std::move(record));
  }
  return pos;
}

size_t ChunkReader::FindCut(const Chunk& chunk, bool* cut_in_line, bool* cut_in_token) const {
  const char* data = chunk.buffer_.data();
  const size_t size = chunk.size_;
  if (const void* nl = ::memrchr(data, '\n', size)) {
    return static_cast<const char*>(nl) - data + 1;
  }
  if (format_ == InputFormat::kJsonl) return 0;  // a record must stay whole: read more
  *cut_in_line = true;
  if (const size_t cut = LastSafeCut(std::string_view(data, size), options_.tokenizer); cut > 0)
    return cut;
  // One token longer than a whole chunk: tokenizers cut tokens at 999 bytes,
  // so its tail is dropped by the next chunk's reader (starts_in_token).
  *cut_in_token = true;
  const size_t cut = InTokenCut(std::string_view(data, size), options_.tokenizer);
  return cut > 0 ? cut : size;
}

Status ChunkReader::FillChunk(Chunk* chunk) {
  const InputFile& input = inputs_[next_input_];
  chunk->input = static_cast<uint32_t>(next_input_);
  chunk->offset = offset_;
  chunk->continues_line = carry_continues_line_;
  chunk->starts_in_token = carry_starts_in_token_;
  chunk->format = format_;
  chunk->warc_records.clear();

  size_t target = std::max(options_.chunk_bytes, carry_.size());
  auto reserve = [chunk](size_t bytes) {
    if (chunk->buffer_.size() < bytes + kChunkPadding) chunk->buffer_.resize(bytes + kChunkPadding);
  };
  reserve(target);
  std::memcpy(chunk->buffer_.data(), carry_.data(), carry_.size());
  chunk->size_ = carry_.size();

  size_t cut = 0;
  bool cut_in_line = false, cut_in_token = false;
  for (;;) {
    while (chunk->size_ < target && !source_eof_) {
      size_t got = 0;
      SG_RETURN_IF_ERROR(
          source_->Read(chunk->buffer_.data() + chunk->size_, target - chunk->size_, &got));
      if (got == 0) source_eof_ = true;
      chunk->size_ += got;
    }
    if (format_ == InputFormat::kWet) {
      cut = CutWarcRecords(chunk, source_eof_);  // at the end: every byte, in records good or bad
      if (cut > 0 || source_eof_) break;
    } else if (source_eof_) {
      cut = chunk->size_;
      break;
    } else {
      cut = FindCut(*chunk, &cut_in_line, &cut_in_token);
      if (cut > 0) break;
    }
    if (target >= options_.max_record_bytes) {
      return Status::Corruption(fmt::format(
          "{}: byte {}: {} record longer than {} bytes; --max-line-bytes raises the limit",
          input.path, offset_, format_ == InputFormat::kWet ? "WARC" : "JSONL",
          options_.max_record_bytes));
    }
    target = std::min(target * 2, options_.max_record_bytes);
    reserve(target);
  }

  if (cut_in_line) {
    // A text line continues into the next chunk: bounded, so a file without
    // newlines (binary data, a lost line ending) is an error, not a silent
    // billion-byte document.
    const void* nl = memrchr(chunk->buffer_.data(), '\n', cut);
    if (nl != nullptr)
      line_start_ = offset_ + (static_cast<const char*>(nl) - chunk->buffer_.data()) + 1;
    if (offset_ + cut - line_start_ > options_.max_record_bytes) {
      return Status::Corruption(
          fmt::format("{}: byte {}: a line longer than {} bytes (no newline); --max-line-bytes "
                      "raises the limit",
                      input.path, line_start_, options_.max_record_bytes));
    }
  } else {
    line_start_ = offset_ + cut;
  }
  carry_.assign(chunk->buffer_.data() + cut, chunk->size_ - cut);
  carry_continues_line_ = cut_in_line;
  carry_starts_in_token_ = cut_in_token;
  chunk->size_ = cut;
  std::memset(chunk->buffer_.data() + cut, 0, kChunkPadding);
  offset_ += cut;
  if (carry_.empty() && !source_eof_) {
    // The input may end exactly here: read ahead, so this chunk knows whether
    // it is the last one (its input's record and document end depend on it).
    carry_.resize(std::min(kEndProbeBytes, options_.chunk_bytes));
    size_t got = 0;
    SG_RETURN_IF_ERROR(source_->Read(carry_.data(), carry_.size(), &got));
    carry_.resize(got);
    source_eof_ = got == 0;
  }
  chunk->ends_input = source_eof_ && carry_.empty();
  return Status::OK();
}

}  // namespace streamglove
