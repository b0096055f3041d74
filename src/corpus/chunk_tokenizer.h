// ChunkTokenizer: a chunk's documents, as tokens.
//
// Hides the input format from the stages: a text chunk is tokenized as is;
// a JSONL chunk's records each give one document (the configured field). The
// end of an input always ends a document, so no window crosses two files.
//
// Thread-safety: holds a Tokenizer and a JSON parser; use one per thread.
#ifndef STREAMGLOVE_CORPUS_CHUNK_TOKENIZER_H_
#define STREAMGLOVE_CORPUS_CHUNK_TOKENIZER_H_

#include <cstdint>
#include <limits>
#include <vector>

#include "corpus/jsonl_field.h"
#include "streamglove/corpus_reader.h"
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

  // Emits the chunk's tokens and document ends to *sink. A malformed JSONL
  // record is a Corruption naming the file and the record's byte offset.
  Status Tokenize(const Chunk& chunk, TokenSink* sink);

  const TokenizerStats& stats() const { return tokenizer_.stats(); }
  // Where the first token with invalid UTF-8 was seen (invalid when none).
  CorpusLocation first_invalid_utf8() const { return first_invalid_utf8_; }

 private:
  Status TokenizeJsonl(const Chunk& chunk, TokenSink* sink);
  void NoteInvalid(uint32_t input, uint64_t offset);

  const std::vector<InputFile>* inputs_;
  Tokenizer tokenizer_;
  JsonlField json_;
  CorpusLocation first_invalid_utf8_;
};

}  // namespace streamglove

#endif  // STREAMGLOVE_CORPUS_CHUNK_TOKENIZER_H_
