// The ingest spread over the ranks of an MPI job (`mpirun -np N streamglove
// ingest ...`): the same store, byte for byte, as one process would make of
// the same inputs. docs/distributed.md has the design and its measurements.
//
// Phases (every one ends with MpiWorld::Agree, so an error on any rank ends
// the job on all of them with one line):
//  1. Plan (rank 0, which opens the store and holds its lock throughout):
//     selects the inputs as the single-process ingest does and assigns them
//     to ranks (largest first, to the least loaded rank), recorded in
//     STORE/ranks/plan so that a rerun after a crash resumes the same plan.
//  2. Vocabulary, for a new store: distributed_vocab.h; rank 0 writes it to
//     the store.
//  3. Counting: each rank ingests its inputs into its own store,
//     STORE/ranks/R, with the frozen vocabulary: the single-process ingest
//     itself, so a rank killed mid-way (kill -9 included) resumes from its
//     last batch when the command is rerun.
//  4. Exchange: the rows are cut into N ranges of about equal token counts;
//     every rank streams the pairs of each range to the rank that owns it
//     (stream_exchange.h), in the store's sorted run format.
//  5. Merge: each rank merges what it received into one sorted, summed run
//     of its rows.
//  6. Commit (rank 0): the N runs become the key ranges of one store batch,
//     committed with every rank's input records in one atomic step; then
//     STORE/ranks is removed.
//
// A crash before step 6 commits leaves the store as it was (plus rank
// stores that the rerun resumes); after it, the rerun finds every input
// ingested. STORE must be on a file system every rank sees (rank 0 reads the
// merged runs and the ranks' records through it); the single-process ingest
// refuses a store with a pending plan.
#ifndef STREAMGLOVE_COOCCUR_MPI_DISTRIBUTED_INGEST_H_
#define STREAMGLOVE_COOCCUR_MPI_DISTRIBUTED_INGEST_H_

#include <string>
#include <vector>

#include "cooccur_mpi/mpi_world.h"
#include "streamglove/corpus_reader.h"
#include "streamglove/ingest.h"
#include "streamglove/options.h"
#include "streamglove/status.h"

namespace streamglove {

struct DistributedIngestStats {
  int ranks = 0;
  // Totals over the ranks: inputs, tokens, increments, bytes read, spilled
  // runs; rank 0's messages and vocabulary size.
  IngestStats ingest;
  uint64_t text_bytes = 0;               // decompressed bytes counted, all ranks
  uint64_t vocab_exchange_bytes = 0;     // word counts sent between ranks, all ranks
  uint64_t pair_exchange_bytes = 0;      // pair runs sent between ranks, all ranks
  uint64_t max_rank_exchange_bytes = 0;  // sent by the rank that sent most
  uint64_t pairs = 0;                    // distinct pairs committed
  // Wall time of each phase (the slowest rank's).
  double plan_seconds = 0, vocab_seconds = 0, count_seconds = 0, exchange_seconds = 0,
         merge_seconds = 0, commit_seconds = 0;
};

// Collective: every rank calls it with the same arguments (the same command
// line). REQUIRES: validated options; inputs are regular files.
Status DistributedIngest(MpiWorld* world, const std::string& store_dir,
                         const std::vector<InputFile>& inputs, const CorpusOptions& corpus,
                         const IngestOptions& options, DistributedIngestStats* stats);

}  // namespace streamglove

#endif  // STREAMGLOVE_COOCCUR_MPI_DISTRIBUTED_INGEST_H_
