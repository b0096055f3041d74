// ChunkTokenizer: a chunk's documents, as tokens.
//
// Hides the input format from the stages: a text chunk is tokenized as is;
// a JSONL chunk's records each give one document (the configured field), a
// WET chunk's conversion records their bodies (a newline inside still ends a
// document, as in every format). The
// end of an input always ends a document, so no window crosses two files.
// Bad records (see CorpusOptions::skip_bad_records) fail the chunk before any
// of its tokens is emitted, or are skipped and counted.
//
// Thread-safety: holds a Tokenizer and a JSON parser; use one per thread.
#ifndef STREAMGLOVE_CORPUS_CHUNK_TOKENIZER_H_
#define STREAMGLOVE_CORPUS_CHUNK_TOKENIZER_H_

#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "corpus/jsonl_field.h"
#include "streamglove/corpus_reader.h"
#include "streamglove/phrases.h"
#include "streamglove/tokenizer.h"

namespace streamglove {

// A place in the corpus: input index and byte offset in its decompressed bytes.
struct CorpusLocation {
  uint32_t input = std::numeric_limits<uint32_t>::max();
  uint64_t offset = 0;

  bool valid() const { return input != std::numeric_limits<uint32_t>::max(); }
  bool operator<(const CorpusLocation& o) const {
    return input != o.input ? input < o.input : offset < o.offset;
  }
};

class ChunkTokenizer {
 public:
  // `inputs` must outlive this object.
  ChunkTokenizer(const CorpusOptions& options, const std::vector<InputFile>* inputs);

  // Emits the chunk's tokens (joined by the options' phrases, if any) and
  // document ends to *sink. A bad record is a Corruption naming the file and
  // byte offset, unless skipped.
  Status Tokenize(const Chunk& chunk, TokenSink* sink);

  const TokenizerStats& stats() const { return tokenizer_.stats(); }
  // Bad records skipped so far, and the first of them (by corpus position)
  // with what was wrong.
  uint64_t bad_records() const { return bad_records_; }
  CorpusLocation first_bad_record() const { return first_bad_; }
  const std::string& first_bad_reason() const { return first_bad_reason_; }

 private:
  Status TokenizeFormat(const Chunk& chunk, TokenSink* sink);
  Status TokenizeText(const Chunk& chunk, TokenSink* sink);
  Status TokenizeJsonl(const Chunk& chunk, TokenSink* sink);
  Status TokenizeWet(const Chunk& chunk, TokenSink* sink);
  // Fails (the default) or counts the bad record at `offset` of the chunk.
  Status BadRecord(const Chunk& chunk, uint64_t offset, const std::string& reason);

  const std::vector<InputFile>* inputs_;
  const bool skip_bad_records_;
  const std::shared_ptr<const PhraseList> phrases_;  // null when none are joined
  Tokenizer tokenizer_;
  JsonlField json_;
  uint64_t bad_records_ = 0;
  CorpusLocation first_bad_;
  std::string first_bad_reason_;
};

}  // namespace streamglove

#endif  // STREAMGLOVE_CORPUS_CHUNK_TOKENIZER_H_
