// The vocabulary pass spread over the ranks of an MPI job, with the result
// one process would get: each rank counts its own inputs (word counts in
// word order, vocab/word_counts.h), every word's partial counts go to the
// rank that owns it (the word's hash mod the ranks) as word-ordered runs,
// the owners sum them and drop words below min_count, and rank 0 orders the
// survivors (count descending, ties by bytes) and cuts at max_vocab: the
// same entries, in the same order, as BuildVocabulary over all the inputs.
//
// Memory per rank: the counting pass's options.memory_bytes; then the
// merge of the received runs (one read buffer per rank); rank 0 holds the
// kept vocabulary, as the store does anyway.
#ifndef STREAMGLOVE_COOCCUR_DISTRIBUTED_DISTRIBUTED_VOCAB_H_
#define STREAMGLOVE_COOCCUR_DISTRIBUTED_DISTRIBUTED_VOCAB_H_

#include <vector>

#include "cooccur/distributed/mpi_world.h"
#include "cooccur/distributed/stream_exchange.h"
#include "streamglove/corpus_reader.h"
#include "streamglove/options.h"
#include "streamglove/status.h"
#include "streamglove/vocab_file.h"
#include "streamglove/vocabulary.h"

namespace streamglove {

// Collective. `inputs`: this rank's share. On rank 0 *vocab gets the
// vocabulary (possibly empty); other ranks get an empty one. *exchange: this
// rank's share of the word-count exchange. Spill and exchange files go
// under options.temp_dir.
// REQUIRES: validated options.
Status BuildDistributedVocabulary(MpiWorld* world, const std::vector<InputFile>& inputs,
                                  const CorpusOptions& corpus, const VocabOptions& options,
                                  std::vector<VocabEntry>* vocab, ExchangeStats* exchange);

}  // namespace streamglove

#endif  // STREAMGLOVE_COOCCUR_DISTRIBUTED_DISTRIBUTED_VOCAB_H_
