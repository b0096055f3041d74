// The ingest spread over the ranks of an MPI job (`mpirun -np N streamglove
// ingest ...`): the same store, byte for byte, as one process would make of
// the same inputs. docs/distributed.md has the design and its measurements.
//
// Phases (every one ends with MpiWorld::Agree, so an error on any rank ends
// the job on all of them with one line):
//  1. Plan (rank 0, which opens the store and holds its lock throughout):
//     selects the inputs as the single-process ingest does (those in the
//     store are skipped) and assigns them to ranks, largest first to the
//     least loaded.
//  2. Vocabulary, for a new store: distributed_vocab.h; rank 0 writes it to
//     the store.
//  3. Rounds, until every rank has read its inputs: each rank counts whole
//     inputs, about --batch-size of text (cooccur/batch_counter.h, the
//     single-process counting), and ends the round with its counts as sorted
//     run files (its spilled runs and one of what it held in memory); the
//     rows are cut into N ranges of about equal pair counts, one per owner
//     rank; each rank tells each owner where in its runs the owner's rows lie
//     (stream_exchange.h: a list of file slices, not the pairs); each owner
//     merges its rows' slices of every rank's runs, read where they were
//     written, into one SST file; rank 0 commits the N files with the
//     round's input records in one atomic step.
//
// Crash safety: a round's counts and its inputs' records reach the store
// together or not at all, and a round holds whole inputs only, so after a
// crash (kill -9 of any rank: the launcher ends the job) rerunning the
// command, with any number of ranks, counts exactly the inputs the store
// does not record. STORE must be on a file system every rank sees (the
// vocabulary, the runs and the rows' SST files pass through
// STORE/distributed).
#ifndef STREAMGLOVE_COOCCUR_DISTRIBUTED_DISTRIBUTED_INGEST_H_
#define STREAMGLOVE_COOCCUR_DISTRIBUTED_DISTRIBUTED_INGEST_H_

#include <string>
#include <vector>

#include "cooccur/distributed/mpi_world.h"
#include "streamglove/corpus_reader.h"
#include "streamglove/distributed_ingest.h"
#include "streamglove/ingest.h"
#include "streamglove/options.h"
#include "streamglove/status.h"

namespace streamglove {

// IngestDistributed on `world`, which the caller initialised (tests share
// one among cases). Collective, with IngestDistributed's requirements.
Status DistributedIngest(MpiWorld* world, const std::string& store_dir,
                         const std::vector<InputFile>& inputs, const CorpusOptions& corpus,
                         const IngestOptions& options, DistributedIngestStats* stats);

}  // namespace streamglove

#endif  // STREAMGLOVE_COOCCUR_DISTRIBUTED_DISTRIBUTED_INGEST_H_
