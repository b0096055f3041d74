// Reading a corpus: the list of inputs, and the chunks they are cut into.
//
// A corpus is a list of inputs (files, files found under directories, or
// standard input). ChunkReader reads them in order and cuts the decompressed
// bytes into chunks of about CorpusOptions::chunk_bytes, at line boundaries,
// so chunks can be tokenized in parallel; each chunk knows its input and byte
// offset for error messages and resumption.
//
// Memory: a ChunkReader holds one compressed read buffer and at most one
// chunk's worth of carried-over bytes; the caller owns the chunks and so
// bounds how many are in flight.
//
// Thread-safety: a ChunkReader is used by one thread at a time (the serial
// input stage of a pipeline). Chunks are independent values.
#ifndef STREAMGLOVE_CORPUS_READER_H_
#define STREAMGLOVE_CORPUS_READER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "streamglove/options.h"
#include "streamglove/status.h"

namespace streamglove {

class ByteSource;

struct InputFile {
  std::string path;  // as given or as found under a directory; "-" is stdin
  // kText, kJsonl or kWet, resolved from CorpusOptions::format and the name;
  // with kAuto, a text input whose first bytes are a WARC header is read as
  // WET (the chunks say so).
  InputFormat format = InputFormat::kText;
  uint64_t size = 0;  // bytes on disk; 0 when unknown (stdin, pipes)
};

// Expands command-line inputs: a file is taken as is, a directory contributes
// every regular file beneath it (recursively, sorted by path bytes so the
// order never depends on the file system), and "-" is standard input.
// A missing path or an empty directory is an error.
Status ExpandInputs(const std::vector<std::string>& args, InputFormat format,
                    std::vector<InputFile>* inputs);

// A WARC record of a WET chunk, found by the reader (see corpus/warc_record.h);
// offsets are in the chunk's text.
struct WarcRecord {
  size_t begin = 0;       // the record's first byte
  size_t end = 0;         // past its last: where the next record begins
  size_t body_begin = 0;  // the body, when the record is good
  size_t body_size = 0;
  bool text = false;    // a good `conversion` record: its body is a document
  std::string problem;  // non-empty: a bad record, and why
};

// Extra zeroed bytes after every chunk's text, so SIMD parsers (simdjson) may
// read past the end of a record.
inline constexpr size_t kChunkPadding = 64;

class Chunk {
 public:
  uint32_t input = 0;            // index into the reader's inputs
  uint64_t offset = 0;           // byte offset of text()[0] in the input's decompressed bytes
  bool continues_line = false;   // the previous chunk was cut inside this line (text only)
  bool starts_in_token = false;  // ...and inside a token longer than a chunk: its tail,
                                 // up to the first separator, belongs to that token
  bool ends_input = false;       // the last chunk of its input
  InputFormat format = InputFormat::kText;  // kText, kJsonl or kWet
  std::vector<WarcRecord> warc_records;     // kWet: the whole records the chunk holds

  std::string_view text() const { return {buffer_.data(), size_}; }
  size_t size() const { return size_; }

 private:
  friend class ChunkReader;
  std::vector<char> buffer_;  // size_ bytes of text, then at least kChunkPadding zeros
  size_t size_ = 0;
};

class ChunkReader {
 public:
  // REQUIRES: ValidateCorpusOptions(options).ok().
  ChunkReader(std::vector<InputFile> inputs, const CorpusOptions& options);
  ~ChunkReader();
  ChunkReader(const ChunkReader&) = delete;
  ChunkReader& operator=(const ChunkReader&) = delete;

  // Fills *chunk with the next chunk; sets *done at the end of the corpus.
  // Errors (unreadable or corrupt input, an empty input, a JSONL record over
  // max_record_bytes) name the file and byte offset; the reader is then
  // unusable.
  Status Next(Chunk* chunk, bool* done);

  // Where reading stands inside the current input: the decompressed offset
  // of the next chunk, and the flags that chunk will carry.
  struct Position {
    uint64_t offset = 0;
    bool continues_line = false;
    bool starts_in_token = false;
  };
  // REQUIRES: the last chunk returned did not end its input.
  Position next_position() const {
    return {offset_, carry_continues_line_, carry_starts_in_token_};
  }

  // Makes input `input` start at `position` (from next_position() of an
  // earlier run, or the end of what an earlier run read of a file that has
  // grown since): its bytes before position.offset are decompressed and
  // skipped. REQUIRES: called before Next() reaches the input.
  void StartAt(size_t input, const Position& position) { starts_[input] = position; }

  const std::vector<InputFile>& inputs() const { return inputs_; }
  // Bytes of the inputs consumed so far, as stored (compressed): for progress.
  uint64_t bytes_consumed() const;
  // Sum of the inputs' known sizes.
  uint64_t bytes_total() const { return bytes_total_; }

 private:
  Status OpenInput();
  Status FillChunk(Chunk* chunk);
  size_t FindCut(const Chunk& chunk, bool* cut_in_line, bool* cut_in_token) const;
  // kWet: the records that fit whole in the chunk's bytes, into
  // chunk->warc_records; returns where the last one ends (0: none fits).
  size_t CutWarcRecords(Chunk* chunk, bool at_end) const;

  const std::vector<InputFile> inputs_;
  const CorpusOptions options_;
  uint64_t bytes_total_ = 0;
  uint64_t bytes_finished_ = 0;  // on-disk bytes of inputs already read

  std::vector<Position> starts_;  // by input
  size_t next_input_ = 0;
  std::unique_ptr<ByteSource> source_;       // the current input, when open
  InputFormat format_ = InputFormat::kText;  // the current input's
  bool source_eof_ = false;
  bool chunk_returned_ = false;  // of the current input
  uint64_t offset_ = 0;          // decompressed offset of carry_[0]
  uint64_t line_start_ = 0;      // offset where the line being read began
  std::string carry_;            // bytes read past the previous chunk's cut
  bool carry_continues_line_ = false;
  bool carry_starts_in_token_ = false;
};

}  // namespace streamglove

#endif  // STREAMGLOVE_CORPUS_READER_H_
