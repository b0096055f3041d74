// Options of the stages that read a corpus, with their defaults: how inputs
// are read and tokenized (CorpusOptions: vocab, ingest and embed share it)
// and the vocabulary pass (VocabOptions). The later stages' options sit in
// their own headers beside them: IngestOptions (ingest.h), TrainOptions
// (train.h), EmbedOptions (embed.h). Every struct is validated once, at the
// boundary (the CLI, the Python module), by its stage's Validate*Options,
// so the stages may assume valid options.
#ifndef STREAMGLOVE_OPTIONS_H_
#define STREAMGLOVE_OPTIONS_H_

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>

#include "streamglove/status.h"

namespace streamglove {

class PhraseList;

// The most worker threads a stage may be given (every `threads` option; 0
// there means one per core). More than the cores is honoured, except by
// ingest, whose counting workers each own a buffer of --memory and stop at
// the cores (IngestOptions::threads).
inline constexpr int kMaxThreads = 1024;

// How an input's bytes (after decompression) are read as documents.
enum class InputFormat {
  // JSONL when the name ends in .jsonl/.ndjson, WET when it ends in .wet or
  // .warc.wet (before .zst/.gz/.xz/.bz2) or the input starts with a
  // "WARC/1." line, else text.
  kAuto,
  kText,   // every line is a document
  kJsonl,  // every line is a JSON object; one string field is the document
  // WARC records (Common Crawl's WET files): the body of every `conversion`
  // record is a page's text; other records (warcinfo) are metadata, skipped.
  // As in the other formats, a newline inside a page ends a document.
  kWet,
};

// "auto", "text", "jsonl", "wet": the --format values.
inline const char* InputFormatName(InputFormat f) {
  switch (f) {
    case InputFormat::kAuto:
      return "auto";
    case InputFormat::kText:
      return "text";
    case InputFormat::kJsonl:
      return "jsonl";
    case InputFormat::kWet:
      return "wet";
  }
  return "?";
}

// The one of `values` that `name_of` calls `name` (the command line's and the
// Python module's spelling of an option); false when none is.
template <typename Enum>
bool ParseNamed(std::string_view name, std::initializer_list<Enum> values,
                const char* (*name_of)(Enum), Enum* out) {
  for (Enum v : values) {
    if (name == name_of(v)) {
      *out = v;
      return true;
    }
  }
  return false;
}

enum class TokenizerKind {
  // Byte-exact with Stanford GloVe: tokens split on space, tab and newline;
  // '\r' is dropped; a token over 999 bytes is cut at a UTF-8 boundary.
  kWhitespace,
  // Unicode-aware: runs of letters, marks and digits are words; every other
  // symbol or punctuation character is a token of its own (see tokenizer.h).
  kWords,
  // ICU's word break iterator (UAX #29 rules, and dictionaries for Chinese,
  // Japanese, Thai, Lao, Khmer and Burmese, written without spaces): its
  // words are tokens; every other character but spaces is a token of its
  // own, as with kWords.
  kIcu,
};

// "whitespace", "words", "icu": the --tokenizer values, as stores record them.
inline const char* TokenizerKindName(TokenizerKind k) {
  switch (k) {
    case TokenizerKind::kWhitespace:
      return "whitespace";
    case TokenizerKind::kWords:
      return "words";
    case TokenizerKind::kIcu:
      return "icu";
  }
  return "?";
}

// How a counted pair's increment depends on the distance d (1 <= d <= W, in
// in-vocabulary words) between its words.
enum class DistanceWeighting {
  kHarmonic,  // 1/d: Stanford GloVe's cooccur
  // (W - d + 1) / W: word2vec's dynamic window in expectation (it draws each
  // word's window size uniformly from 1..W, so distance d is in it with that
  // probability).
  kLinear,
  kNone,  // 1
};

// "harmonic", "linear", "none": the --weighting values.
inline const char* DistanceWeightingName(DistanceWeighting w) {
  switch (w) {
    case DistanceWeighting::kHarmonic:
      return "harmonic";
    case DistanceWeighting::kLinear:
      return "linear";
    case DistanceWeighting::kNone:
      return "none";
  }
  return "?";
}

// Reading and tokenizing a corpus.
struct CorpusOptions {
  // Default: kAuto. Compression (zstd, gzip, xz, bzip2, none) is always detected from
  // the content's magic bytes, so stdin may be compressed too.
  InputFormat format = InputFormat::kAuto;

  // The JSONL field holding the text. Default: "text". A record without it,
  // or with a non-string value, is an error naming the file and byte offset.
  std::string json_field = "text";

  // Default: kWhitespace (Stanford GloVe's behaviour).
  TokenizerKind tokenizer = TokenizerKind::kWhitespace;

  // Unicode-aware lowercasing (simple case mapping) before counting.
  // Default: false.
  bool lowercase = false;

  // Input is cut into chunks of about this many bytes at line boundaries;
  // chunks are tokenized in parallel. A line longer than this is cut at a
  // space or tab (the document continues in the next chunk). Larger chunks
  // amortise scheduling; smaller ones bound memory. Default: 4 MiB. Usually
  // derived from the memory budget (PlanVocabMemory, PlanIngestMemory).
  size_t chunk_bytes = size_t{4} << 20;

  // The longest JSONL record or text line accepted; a longer one is an error
  // naming the file and the line's byte offset (a text line is read in chunks,
  // so the limit bounds no memory: it catches files that are not text with
  // line ends, while text8-style single lines of 100 MB pass). Default: 256 MiB.
  size_t max_record_bytes = size_t{256} << 20;

  // Bad records: a text line holding invalid UTF-8 or a NUL byte; a JSONL
  // record that does not parse (invalid UTF-8 included), is not an object, or
  // lacks the string field. By default the first one is an error naming the
  // file and byte offset, before any of its chunk is counted. With
  // skip_bad_records they are skipped and counted instead (a text line longer
  // than a chunk is skipped chunk by chunk). Default: false.
  bool skip_bad_records = false;

  // Phrases joined before counting (streamglove/phrases.h), or null for
  // none. A store records the list it was counted with. Default: null.
  std::shared_ptr<const PhraseList> phrases;
};

// The vocabulary pass (`streamglove vocab`).
struct VocabOptions {
  // Words seen fewer times are dropped. Default: 1 (keep every word), as
  // Stanford GloVe's vocab_count.
  uint64_t min_count = 1;

  // Keep at most this many words, the most frequent; 0 means no limit.
  // Default: 0.
  uint64_t max_vocab = 0;

  // Worker threads; 0 means one per core. Default: 0.
  int threads = 0;

  // Peak memory for the whole process. When the distinct-word tables would
  // outgrow their share, partial counts spill to sorted run files in
  // `temp_dir` and are merged at the end. Default: 1 GiB.
  size_t memory_bytes = size_t{1} << 30;

  // Where spill runs go; empty means $TMPDIR, else /tmp. Default: empty.
  std::string temp_dir;

  // Advanced (tests): spill a worker's table, or the final count-ordered
  // table, once it holds this many bytes; 0 derives both limits from
  // memory_bytes. Default: 0.
  size_t spill_threshold_bytes = 0;

  // Show progress on stderr when it is a terminal. Default: true.
  bool progress = true;
};

// Smallest --memory accepted: below this the process's own baseline (code,
// thread stacks, I/O buffers) leaves nothing for the work.
inline constexpr size_t kMinMemoryBytes = size_t{32} << 20;

Status ValidateCorpusOptions(const CorpusOptions& options);
Status ValidateVocabOptions(const VocabOptions& options);

}  // namespace streamglove

#endif  // STREAMGLOVE_OPTIONS_H_
