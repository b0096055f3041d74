// Every distinct word of a corpus with its count, in word order: the
// vocabulary pass without its cut, for callers that combine partial counts
// (the distributed ingest sums each rank's by word, src/cooccur/distributed/).
#ifndef STREAMGLOVE_VOCAB_WORD_COUNTS_H_
#define STREAMGLOVE_VOCAB_WORD_COUNTS_H_

#include <vector>

#include "streamglove/corpus_reader.h"
#include "streamglove/options.h"
#include "streamglove/status.h"
#include "streamglove/vocabulary.h"
#include "vocab/word_run.h"

namespace streamglove {

// The folder of a pass's spill runs, in options.temp_dir: this prefix, the
// process's pid, '-' and a unique suffix (TempDir). BuildVocabulary removes
// those of killed processes there (RemoveDeadLeftovers).
inline constexpr char kVocabTempPrefix[] = "streamglove-vocab-";

// Counts every token of `inputs` as BuildVocabulary does and calls `emit`
// once per distinct word, in ascending byte order (memcmp), with its count;
// options.min_count and max_vocab are not applied. Memory within
// options.memory_bytes (tables spill word runs to options.temp_dir). An
// error `emit` returns stops the pass and is returned.
// REQUIRES: the options were validated.
Status CountWordsInOrder(const std::vector<InputFile>& inputs, const CorpusOptions& corpus,
                         const VocabOptions& options, const WordEmitter& emit, VocabStats* stats);

}  // namespace streamglove

#endif  // STREAMGLOVE_VOCAB_WORD_COUNTS_H_
