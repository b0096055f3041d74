// The vocabulary pass, and Stanford GloVe's vocabulary file format.
//
// A vocabulary file has one "word count" line per word, count descending,
// ties broken by ascending byte order of the word (memcmp; Stanford's
// vocab_count compares signed chars, which differs only for non-ASCII ties),
// so the output depends only on the corpus and the options, never on thread
// count, chunking or memory budget.
#ifndef STREAMGLOVE_VOCABULARY_H_
#define STREAMGLOVE_VOCABULARY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "streamglove/corpus_reader.h"
#include "streamglove/options.h"
#include "streamglove/status.h"
#include "streamglove/tokenizer.h"

namespace streamglove {

struct VocabStats {
  TokenizerStats tokenizer;       // tokens seen, truncated
  uint64_t bad_records = 0;        // skipped (CorpusOptions::skip_bad_records)
  std::string first_bad_record;    // "file: byte N: what" of the first skipped, or empty
  uint64_t distinct_words = 0;     // before min_count / max_vocab
  uint64_t kept_words = 0;         // lines written
  uint64_t bytes_read = 0;         // input bytes as stored (compressed)
  uint64_t spill_runs = 0;         // partial tables written to disk
  int threads = 0;
  double seconds = 0;
};

// Counts every token of `inputs` and writes the vocabulary file to
// `output_path` ("-" for stdout) atomically: on error no file is left behind.
// Memory stays within options.memory_bytes: worker tables spill sorted runs to
// a temporary directory and are merged at the end.
// REQUIRES: the options were validated.
Status BuildVocabulary(const std::vector<InputFile>& inputs, const CorpusOptions& corpus_options,
                       const VocabOptions& options, const std::string& output_path,
                       VocabStats* stats);

struct VocabEntry {
  std::string word;
  uint64_t count = 0;
};

// Reads a vocabulary file. Errors name the file and line: a line that is not
// "word count", a count that is not a positive integer, a duplicate word.
Status ReadVocabFile(const std::string& path, std::vector<VocabEntry>* entries);

}  // namespace streamglove

#endif  // STREAMGLOVE_VOCABULARY_H_
