// The ingest spread over the ranks of an MPI job (`mpirun -np N streamglove
// ingest ...`): the same store, byte for byte, as one process would make of
// the same inputs, and as safe to kill and rerun. docs/distributed.md has the
// design and its measurements. Built only where MPI was found (the CLI's
// ingest then runs it when started by mpirun).
//
// Thread-safety: call it once per process, from the thread that will make
// every MPI call (MPI_THREAD_FUNNELED).
#ifndef STREAMGLOVE_DISTRIBUTED_INGEST_H_
#define STREAMGLOVE_DISTRIBUTED_INGEST_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

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
  uint64_t pair_exchange_bytes = 0;      // run bytes owners read from other ranks, all ranks
  uint64_t max_rank_exchange_bytes = 0;  // read from the rank read most from
  uint64_t pairs = 0;                    // distinct pairs committed
  // Merged and committed by the rank that merged most (its rows' share of
  // `pairs`: ranks' row ranges are balanced when it is about pairs / ranks).
  uint64_t max_rank_pairs = 0;
  // Wall time of each phase (the slowest rank's).
  double plan_seconds = 0, vocab_seconds = 0, count_seconds = 0, exchange_seconds = 0,
         merge_seconds = 0, commit_seconds = 0;
};

// Collective: every rank calls it with the same arguments (the same command
// line). Initialises MPI, ingests, and calls `report` on every rank with its
// rank and the outcome (rank 0's stats hold the totals) before MPI is
// finalised: once a rank has failed, the launcher may kill the others, and
// Open MPI's finalize holds them until every rank reaches it, so what is
// printed after this returns may never appear. Returns the outcome.
// REQUIRES: validated options; inputs are regular files.
// `prepared`: how this rank's preparation went (expanding its inputs),
// agreed on first, so a failure on any rank ends the job on all of them.
Status IngestDistributed(const std::string& store_dir, const std::vector<InputFile>& inputs,
                         const CorpusOptions& corpus, const IngestOptions& options,
                         const Status& prepared,
                         const std::function<void(int rank, const Status& outcome,
                                                  const DistributedIngestStats& stats)>& report);

}  // namespace streamglove

#endif  // STREAMGLOVE_DISTRIBUTED_INGEST_H_
