// `mpirun -np N streamglove ingest ...`: the ingest command as one rank of
// an MPI job (src/cooccur/distributed/distributed_ingest.h). Rank 0 prints the
// messages, the summary and the error line; the other ranks stay silent.
#include <fmt/format.h>

#include "cli/store_commands.h"
#include "cooccur/distributed/distributed_ingest.h"
#include "cooccur/distributed/mpi_world.h"
#include "util/size.h"

namespace streamglove {

Status IngestCommand::RunDistributed() {
  std::unique_ptr<MpiWorld> world;
  SG_RETURN_IF_ERROR(MpiWorld::Init(&world));
  reports_errors_ = world->rank() == 0;
  DistributedIngestStats stats;
  const Status s = DistributedIngest(world.get(), store_, inputs_, corpus_, options_, &stats);
  if (world->rank() != 0) return s;
  if (!quiet_) {
    for (const std::string& m : stats.ingest.messages) fmt::print(stderr, "ingest: {}\n", m);
  }
  if (!s.ok()) {
    // Printed here, before MPI_Finalize (~MpiWorld): once another rank has
    // exited non-zero, mpirun may kill this one, and Open MPI's finalize
    // (not the MPI standard) holds the other ranks in a fence until this
    // rank reaches it, so main() would print too late.
    PrintErrorLine(s);
    reports_errors_ = false;
    return s;
  }
  if (quiet_) return Status::OK();
  const IngestStats& t = stats.ingest;
  const double seconds = stats.plan_seconds + stats.vocab_seconds + stats.count_seconds +
                         stats.exchange_seconds + stats.merge_seconds + stats.commit_seconds;
  fmt::print(stderr,
             "ingest: {} ranks: {} inputs ingested, {} skipped; {} tokens, {} pair increments; "
             "vocabulary {} words{}; {:.2f} s (plan {:.2f} s, vocabulary {:.2f} s, counting "
             "{:.2f} s, exchange {:.2f} s, merge {:.2f} s, commit {:.2f} s); {} pairs; "
             "exchanged {} of word counts; owners read {} of other ranks' pair runs ({} from the "
             "busiest rank) for {} of text ({} bytes of word counts, {} bytes of pairs, {} bytes "
             "of text)\n",
             stats.ranks, t.inputs_ingested, t.inputs_skipped, t.tokens, t.increments, t.vocab_size,
             t.vocabulary_built ? " (built)" : "", seconds, stats.plan_seconds, stats.vocab_seconds,
             stats.count_seconds, stats.exchange_seconds, stats.merge_seconds, stats.commit_seconds,
             stats.pairs, FormatBytes(stats.vocab_exchange_bytes),
             FormatBytes(stats.pair_exchange_bytes), FormatBytes(stats.max_rank_exchange_bytes),
             FormatBytes(stats.text_bytes), stats.vocab_exchange_bytes, stats.pair_exchange_bytes,
             stats.text_bytes);
  return Status::OK();
}

}  // namespace streamglove
