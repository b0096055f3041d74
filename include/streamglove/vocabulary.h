// The vocabulary pass: counts a corpus's tokens and writes Stanford GloVe's
// vocabulary file (streamglove/vocab_file.h), whose order makes the output
// depend only on the corpus and the options, never on thread count, chunking
// or memory budget.
#ifndef STREAMGLOVE_VOCABULARY_H_
#define STREAMGLOVE_VOCABULARY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "streamglove/corpus_reader.h"
#include "streamglove/options.h"
#include "streamglove/status.h"
#include "streamglove/tokenizer.h"
#include "streamglove/vocab_file.h"

namespace streamglove {

struct VocabStats {
  TokenizerStats tokenizer;      // tokens seen, truncated
  uint64_t bad_records = 0;      // skipped (CorpusOptions::skip_bad_records)
  std::string first_bad_record;  // "file: byte N: what" of the first skipped, or empty
  uint64_t distinct_words = 0;   // before min_count / max_vocab
  uint64_t kept_words = 0;       // lines written
  uint64_t bytes_read = 0;       // input bytes as stored (compressed)
  uint64_t spill_runs = 0;       // partial tables written to disk
  int threads = 0;
  double seconds = 0;
};

// The least VocabOptions::memory_bytes within which a vocabulary pass on
// `threads` threads plans its chunks and smallest tables (with less it
// spills a run every megabyte and still holds that much).
size_t LeastVocabularyMemory(const CorpusOptions& corpus, int threads);

// Counts every token of `inputs` and writes the vocabulary file to
// `output_path` ("-" for stdout) atomically: on error no file is left behind.
// Memory stays within options.memory_bytes: worker tables spill sorted runs to
// a temporary directory and are merged at the end.
// REQUIRES: the options were validated.
Status BuildVocabulary(const std::vector<InputFile>& inputs, const CorpusOptions& corpus_options,
                       const VocabOptions& options, const std::string& output_path,
                       VocabStats* stats);

}  // namespace streamglove

#endif  // STREAMGLOVE_VOCABULARY_H_
