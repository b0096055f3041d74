// Tokenizer: text to tokens and document boundaries.
//
// kWhitespace is byte-exact with Stanford GloVe's get_word(): tokens are split
// on space, tab and newline; '\r' is dropped wherever it appears; a newline
// ends a document; a token longer than 999 bytes keeps its first 999 bytes,
// less a trailing partial UTF-8 character.
//
// kWords splits Unicode text into words and punctuation: a word is a run of
// letters, marks and digits (Unicode categories L*, M*, N*), which may hold an
// apostrophe or hyphen between two word characters (don't, well-known) and a
// period or comma between two digits (3.14, 1,000); every other symbol or
// punctuation character is a token of its own; spaces, separators and
// control characters separate; a newline ends a document.
//
// kIcu segments text with ICU's word break iterator (src/corpus/
// icu_word_breaker.h): its word segments are tokens (so Chinese, Japanese and
// Thai are split into dictionary words); in the other segments every
// character but spaces and controls is a token of its own, as with kWords; a
// newline ends a document. Invalid bytes are read as U+FFFD by ICU, so they
// split words (and are counted, as everywhere).
//
// With lowercase, every code point is mapped by Unicode's simple lowercase
// mapping (utf8proc) before the length limit is applied.
//
// Invalid UTF-8 never stops tokenization: the bytes are kept as they are and
// the token is counted in TokenizerStats::invalid_utf8_tokens.
//
// Thread-safety: a Tokenizer holds scratch buffers and statistics; use one
// per thread.
#ifndef STREAMGLOVE_TOKENIZER_H_
#define STREAMGLOVE_TOKENIZER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "streamglove/options.h"

namespace streamglove {

// Stanford GloVe's MAX_STRING_LENGTH - 1: the longest token kept, in bytes.
inline constexpr size_t kMaxTokenBytes = 999;

// Receives a tokenizer's output. The token's bytes are valid only during the
// call.
class TokenSink {
 public:
  virtual ~TokenSink() = default;
  virtual void OnToken(std::string_view token) = 0;
  // A newline, or the end of a JSONL record.
  virtual void OnDocumentEnd() = 0;
};

struct TokenizerStats {
  uint64_t tokens = 0;
  uint64_t truncated_tokens = 0;     // longer than kMaxTokenBytes, cut
  uint64_t invalid_utf8_tokens = 0;  // tokens holding invalid UTF-8

  void Add(const TokenizerStats& other) {
    tokens += other.tokens;
    truncated_tokens += other.truncated_tokens;
    invalid_utf8_tokens += other.invalid_utf8_tokens;
  }
};

class IcuWordBreaker;
struct WordSegment;

class Tokenizer {
 public:
  // REQUIRES: ValidateCorpusOptions(options).ok().
  explicit Tokenizer(const CorpusOptions& options);
  ~Tokenizer();

  // Tokenizes `text`. With skip_partial_token, the bytes before the first
  // separator are the tail of a token already emitted and are skipped.
  // Returns the offset in `text` of the first token with invalid UTF-8, or
  // std::string_view::npos when there is none.
  size_t Tokenize(std::string_view text, bool skip_partial_token, TokenSink* sink);

  const TokenizerStats& stats() const { return stats_; }

 private:
  size_t TokenizeWhitespace(std::string_view text, bool skip_partial_token, TokenSink* sink);
  size_t TokenizeWords(std::string_view text, bool skip_partial_token, TokenSink* sink);
  size_t TokenizeIcu(std::string_view text, bool skip_partial_token, TokenSink* sink);
  // Applies '\r' removal, lowercasing and the length limit, then emits.
  void Emit(std::string_view token, bool has_cr, bool has_high, bool* invalid, TokenSink* sink);

  const bool lowercase_;
  const TokenizerKind kind_;
  std::string scratch_;
  std::string word_;
  TokenizerStats stats_;
  std::unique_ptr<IcuWordBreaker> icu_;  // kIcu only
  std::vector<WordSegment> segments_;    // kIcu: a line's, reused
};

// Where text may be cut without changing the tokens `kind` produces: after a
// space or tab (whitespace), between two code points the words tokenizer
// never joins (anything but word|word, word|connector|word for ' ’ -, and
// digit|. ,|digit), or, for icu, after a space or an ideographic punctuation
// mark (U+3000..303F, U+FF01..FF65) that no combining mark or format
// character follows (where ICU's rules always break and its dictionaries
// start anew). A stretch with no such place is therefore one token.
// LastSafeCut: the position just after the last such place in `text` (0 when
// none), used by ChunkReader to cut lines longer than a chunk. FirstSafeCut:
// the first such position (text.size() when none), where the tail of a token
// cut between chunks ends.
size_t LastSafeCut(std::string_view text, TokenizerKind kind);
size_t FirstSafeCut(std::string_view text, TokenizerKind kind);
// Where to cut text that has no safe place, all of it inside one token: right
// after its last word character (words tokenizer; a connector at the very end
// would otherwise split off), or at its end (whitespace).
size_t InTokenCut(std::string_view text, TokenizerKind kind);

// GloVe's rule for a token cut at kMaxTokenBytes: drop a trailing partial
// UTF-8 character. Returns the kept length. Exposed for tests.
size_t TruncateTokenLength(std::string_view token);

}  // namespace streamglove

#endif  // STREAMGLOVE_TOKENIZER_H_
