#include "streamglove/store_info.h"

#include <cstring>

#include <fmt/format.h>

#include "store/ranked_vocab.h"
#include "store/store.h"
#include "util/file.h"
#include "util/threads.h"

namespace streamglove {

Status ValidateStatsOptions(const StatsOptions& options) { return CheckThreads(options.threads); }

Status ComputeStoreStats(const std::string& dir, size_t memory_bytes, StoreStats* stats,
                         const StatsOptions& options) {
  *stats = StoreStats();
  std::unique_ptr<Store> store;
  SG_RETURN_IF_ERROR(Store::OpenForReading(dir, memory_bytes, &store));
  if (!store->initialized())
    return Status::InvalidArgument(fmt::format("{}: the store holds no vocabulary yet", dir));
  const StoreConfig& c = store->config();
  stats->format_version = c.format_version;
  stats->window = c.window;
  stats->symmetric = c.symmetric;
  stats->weighting = c.weighting;
  stats->subsample = c.subsample;
  stats->scale = c.scale;
  stats->fixed_vocabulary = c.fixed_vocabulary;
  stats->phrases = c.phrases;
  stats->min_count = c.min_count;
  stats->max_vocab = c.max_vocab;
  for (const VocabEntry& e : store->vocab()) stats->words += e.count > 0;
  stats->last_added_words = store->last_added_words();
  stats->vocab_size = RankedVocab(c, store->vocab(), 0, 0).size();
  std::vector<InputRecord> inputs;
  SG_RETURN_IF_ERROR(store->ListInputs(&inputs));
  stats->inputs = inputs.size();
  IngestProgress progress;
  SG_RETURN_IF_ERROR(store->GetProgress(&progress, &stats->partly_ingested));
  if (stats->partly_ingested) stats->tokens += progress.tokens;
  for (const InputRecord& r : inputs) {
    // A file that grew, partly ingested again: its progress counts its tokens.
    if (stats->partly_ingested && r.fingerprint == progress.replaces) continue;
    stats->tokens += r.tokens;
    stats->input_paths.push_back(r.path);
  }
  PairTotals totals;
  bool known = false;
  SG_RETURN_IF_ERROR(store->GetPairTotals(&totals, &known));
  if (!known || (options.pairs == PairCount::kExact && !totals.pairs_exact))
    SG_RETURN_IF_ERROR(store->CountPairs(ResolveThreads(options.threads), &totals));
  stats->nonzero_pairs = totals.pairs;
  stats->nonzero_pairs_exact = totals.pairs_exact;
  stats->sum_of_counts = static_cast<double>(totals.units) / static_cast<double>(c.scale);
  stats->size_on_disk = store->SizeOnDisk();
  stats->derived_bytes = MeasureDirectory(dir).subfolders;
  return Status::OK();
}

Status DumpStore(const std::string& dir, size_t memory_bytes, DumpFormat format, uint64_t min_count,
                 uint64_t max_vocab, const std::string& out_path) {
  std::unique_ptr<Store> store;
  SG_RETURN_IF_ERROR(Store::OpenForReading(dir, memory_bytes, &store));
  if (!store->initialized())
    return Status::InvalidArgument(fmt::format("{}: the store holds no vocabulary yet", dir));
  const RankedVocab ranked(store->config(), store->vocab(), min_count, max_vocab);
  const std::vector<VocabEntry>& vocab = ranked.words();
  if (format == DumpFormat::kVocab) return WriteVocabFile(out_path, vocab);
  const double scale = static_cast<double>(store->config().scale);
  AtomicFileWriter out;
  SG_RETURN_IF_ERROR(out.Open(out_path));
  std::string line;
  SG_RETURN_IF_ERROR(
      ForEachRankedPair(store.get(), ranked, [&](uint32_t row, uint32_t col, uint64_t value) {
        const double count = static_cast<double>(value) / scale;
        line.clear();
        if (format == DumpFormat::kText) {
          fmt::format_to(std::back_inserter(line), "{} {} {}\n", vocab[row].word, vocab[col].word,
                         count);
        } else {
          const int32_t w1 = static_cast<int32_t>(row) + 1, w2 = static_cast<int32_t>(col) + 1;
          char rec[16];
          std::memcpy(rec, &w1, 4);
          std::memcpy(rec + 4, &w2, 4);
          std::memcpy(rec + 8, &count, 8);
          line.assign(rec, sizeof(rec));
        }
        return out.Append(line);
      }));
  return out.Commit();
}

}  // namespace streamglove
