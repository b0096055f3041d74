// `mpirun -np N streamglove ingest ...`: the ingest command as one rank of
// an MPI job (streamglove/distributed_ingest.h). Rank 0 prints the
// messages, the summary and the error line; the other ranks stay silent.
#include <fmt/format.h>

#include "cli/store_commands.h"
#include "streamglove/distributed_ingest.h"
#include "streamglove/units.h"

namespace streamglove {

Status IngestCommand::RunDistributed() {
  const Status expanded = corpus_flags_.Expand(corpus_, &inputs_);
  return IngestDistributed(store_, inputs_, corpus_, options_, expanded,
                           [this](int rank, const Status& s, const DistributedIngestStats& stats) {
                             // Rank 0's outcome, error line included, is
                             // printed here: main() may be too late.
                             if (rank == 0) ReportDistributed(s, stats);
                             error_printed_ = true;
                           });
}

void IngestCommand::ReportDistributed(const Status& s, const DistributedIngestStats& stats) const {
  if (!quiet_) {
    for (const std::string& m : stats.ingest.messages) fmt::print(stderr, "ingest: {}\n", m);
  }
  if (!s.ok()) {
    PrintErrorLine(s);
    return;
  }
  if (quiet_) return;
  const IngestStats& t = stats.ingest;
  const double seconds = stats.plan_seconds + stats.vocab_seconds + stats.count_seconds +
                         stats.exchange_seconds + stats.merge_seconds + stats.commit_seconds;
  fmt::print(stderr,
             "ingest: {} ranks: {} inputs ingested, {} skipped; {} tokens, {} pair increments; "
             "vocabulary {} words{}; {:.2f} s (plan {:.2f} s, vocabulary {:.2f} s, counting "
             "{:.2f} s, exchange {:.2f} s, merge {:.2f} s, commit {:.2f} s); {} pairs ({} merged "
             "by the busiest rank); exchanged {} of word counts; owners read {} of other ranks' "
             "pair runs ({} from the "
             "busiest rank) for {} of text ({} bytes of word counts, {} bytes of pairs, {} bytes "
             "of text)\n",
             stats.ranks, t.inputs_ingested, t.inputs_skipped, t.tokens, t.increments, t.vocab_size,
             t.vocabulary_built ? " (built)" : "", seconds, stats.plan_seconds, stats.vocab_seconds,
             stats.count_seconds, stats.exchange_seconds, stats.merge_seconds, stats.commit_seconds,
             stats.pairs, stats.max_rank_pairs, FormatBytes(stats.vocab_exchange_bytes),
             FormatBytes(stats.pair_exchange_bytes), FormatBytes(stats.max_rank_exchange_bytes),
             FormatBytes(stats.text_bytes), stats.vocab_exchange_bytes, stats.pair_exchange_bytes,
             stats.text_bytes);
}

}  // namespace streamglove
