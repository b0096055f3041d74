#include "cli/store_commands.h"

#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/mpi_launch.h"
#include "streamglove/store_info.h"
#include "streamglove/units.h"

namespace streamglove {

void PrintIngestSummary(const IngestStats& stats) {
  const double seconds = stats.vocab_seconds + stats.count_seconds + stats.commit_seconds;
  fmt::print(
      stderr,
      "ingest: {} inputs ingested{}, {} skipped; {} tokens, {} pair increments in {} batches; "
      "vocabulary {} words{}; {:.2f} s (vocabulary {:.2f} s, counting {:.2f} s, store {:.2f} s; "
      "{:.1f} M tokens/s, {:.1f} M pairs/s, {} threads, {} spilled runs)\n",
      stats.inputs_ingested,
      stats.inputs_grown > 0 ? fmt::format(" ({} grown)", stats.inputs_grown) : std::string(),
      stats.inputs_skipped, stats.tokens, stats.increments, stats.batches, stats.vocab_size,
      stats.unknown_words > 0 ? fmt::format(" (fixed: {} new words left out)", stats.unknown_words)
                              : fmt::format(" ({} new)", stats.new_words),
      seconds, stats.vocab_seconds, stats.count_seconds, stats.commit_seconds,
      stats.tokens / std::max(stats.count_seconds, 1e-9) / 1e6,
      stats.increments / std::max(stats.count_seconds, 1e-9) / 1e6, stats.threads,
      stats.spilled_runs);
}

IngestCommand::IngestCommand(CLI::App* parent) {
  // As one rank of an MPI job, only the first reports errors: the same
  // command line fails the same way everywhere.
  reports_errors_ = MpiLauncherRank() == 0;
  app_ = parent->add_subcommand(
      "ingest",
      "Count co-occurrences of INPUT into the store (created if new). A later ingest adds its "
      "inputs: their new words join the vocabulary and every count grows, as if all had been "
      "ingested at once. Resumable: rerun the same command after an interruption. Inputs already "
      "ingested are skipped; one that grew is read from where it ended.");
  corpus_flags_.Register(app_);
  app_->add_option("--store", store_, "Store directory")->required();
  app_->add_option("--window", options_.window, "Context window (words on each side), at most 20")
      ->capture_default_str();
  app_->add_flag("--asymmetric", asymmetric_, "Count left context only");
  app_->add_option("--weighting", weighting_,
                   "What a pair at distance d adds: harmonic (1/d, Stanford GloVe's), linear "
                   "((W-d+1)/W, word2vec's "
                   "dynamic window) or none (1)")
      ->check(CLI::IsMember({"harmonic", "linear", "none"}))
      ->capture_default_str();
  app_->add_flag("--no-distance-weighting", no_distance_weighting_, "The same as --weighting none")
      ->excludes("--weighting");
  app_->add_option("--subsample", options_.subsample,
                   "New store: count word2vec's windows after its subsampling with threshold t, in "
                   "expectation "
                   "(each pair adds its expected weight; for --objective sgns, which then does not "
                   "subsample again; "
                   "0: none)")
      ->capture_default_str();
  cut_flags_[0] =
      app_->add_option("--min-count", options_.min_count,
                       "New store: the vocabulary cut, words seen at least this often (training's "
                       "and dump's default; every word is counted unless --fixed-vocab)")
          ->capture_default_str();
  cut_flags_[1] = app_->add_option("--max-vocab", options_.max_vocab,
                                   "New store: ...and at most this many of them (0: all)")
                      ->capture_default_str();
  app_->add_flag("--fixed-vocab", options_.fixed_vocabulary,
                 "New store: fix the vocabulary at the first ingest's cut and drop other words "
                 "before windowing (Stanford GloVe's cooccur counts; later inputs' new words are "
                 "reported, not counted)");
  app_->add_option("--vocab", options_.vocab_file,
                   "New store: a fixed vocabulary from this file instead of a vocabulary pass");
  app_->add_option("--memory", memory_, "Peak memory of the whole process, RocksDB included")
      ->capture_default_str();
  app_->add_option("--threads", options_.threads, "Worker threads (0: one per core)")
      ->capture_default_str();
  app_->add_option("--batch-size", batch_size_,
                   "Decompressed bytes per committed batch: the most an interruption can lose")
      ->capture_default_str()
      ->group("Advanced");
  app_->add_option("--max-dense", max_dense_,
                   "Cap on each worker's dense region (0: from --memory)")
      ->capture_default_str()
      ->group("Advanced");
  app_->add_option("--max-buffer", max_buffer_,
                   "Cap on each worker's pair buffer (0: from --memory)")
      ->capture_default_str()
      ->group("Advanced");
  app_->add_flag("--force", options_.force, "Ingest inputs the store already holds again");
  app_->add_flag("--abandon-partial", options_.abandon_partial,
                 "When an interrupted ingest's input changed or is not given: keep what was "
                 "counted of it, record it as an input of those bytes, and count the inputs given");
  app_->add_flag("-q,--quiet", quiet_, "No progress line or summary");
}

Status IngestCommand::Validate() {
  SG_RETURN_IF_ERROR(ParseMemoryFlag(memory_, &options_.memory_bytes));
  size_t batch = 0;
  Status s = ParseByteSize(batch_size_, &batch);
  if (!s.ok()) return Status::InvalidArgument("--batch-size: " + s.message());
  options_.batch_bytes = batch;
  for (auto [flag, text, out] :
       {std::tuple{"--max-dense", &max_dense_, &options_.max_dense_bytes},
        std::tuple{"--max-buffer", &max_buffer_, &options_.max_buffer_bytes}}) {
    s = ParseByteSize(*text, out);
    if (!s.ok()) return Status::InvalidArgument(std::string(flag) + ": " + s.message());
  }
  options_.symmetric = !asymmetric_;
  options_.weighting = no_distance_weighting_   ? DistanceWeighting::kNone
                       : weighting_ == "linear" ? DistanceWeighting::kLinear
                       : weighting_ == "none"   ? DistanceWeighting::kNone
                                                : DistanceWeighting::kHarmonic;
  options_.progress = !quiet_;
  options_.cut_given = cut_flags_[0]->count() + cut_flags_[1]->count() > 0;
  SG_RETURN_IF_ERROR(ValidateIngestOptions(options_));
  // A rank of an MPI job expands its inputs in the job (RunDistributed), so
  // that one missing on some machine ends the job on every rank.
  if (StartedByMpiLauncher()) return corpus_flags_.ResolveOptions(&corpus_);
  return corpus_flags_.Resolve(&corpus_, &inputs_);
}

Status IngestCommand::Run() {
  if (StartedByMpiLauncher()) {
#ifdef SG_WITH_MPI
    return RunDistributed();
#else
    return Status::InvalidArgument(
        "started by an MPI launcher, but this streamglove was built without MPI (install "
        "libopenmpi-dev and rebuild; docs/distributed.md)");
#endif
  }
  IngestStats stats;
  const Status s = Ingest(store_, inputs_, corpus_, options_, &stats);
  if (!quiet_) {
    for (const std::string& m : stats.messages) fmt::print(stderr, "ingest: {}\n", m);
  }
  SG_RETURN_IF_ERROR(s);
  if (!quiet_) PrintIngestSummary(stats);
  return Status::OK();
}

StatsCommand::StatsCommand(CLI::App* parent) {
  app_ = parent->add_subcommand(
      "stats", "Summarise a store: vocabulary, tokens, non-zero pairs, sum of counts");
  app_->add_option("--store", store_, "Store directory")->required();
  app_->add_flag("--json", json_, "Machine-readable output");
  app_->add_flag("--exact", exact_,
                 "Count the non-zero pairs by a scan of the store where its record holds an "
                 "upper bound (a store of several batches); without it, stats reads records "
                 "alone");
  app_->add_option("--threads", options_.threads, "Threads of a scan (0: every core)")
      ->capture_default_str();
}

Status StatsCommand::Validate() { return ValidateStatsOptions(options_); }

Status StatsCommand::Run() {
  StoreStats s;
  options_.pairs = exact_ ? PairCount::kExact : PairCount::kRecorded;
  SG_RETURN_IF_ERROR(ComputeStoreStats(store_, kStoreReadMemoryBytes, &s, options_));
  if (json_) {
    const nlohmann::json out = {{"format_version", s.format_version},
                                {"window", s.window},
                                {"symmetric", s.symmetric},
                                {"weighting", DistanceWeightingName(s.weighting)},
                                {"subsample", s.subsample},
                                {"fixed_vocabulary", s.fixed_vocabulary},
                                {"phrases", s.phrases},
                                {"words", s.words},
                                {"last_added_words", s.last_added_words},
                                {"min_count", s.min_count},
                                {"max_vocab", s.max_vocab},
                                {"vocab_size", s.vocab_size},
                                {"tokens", s.tokens},
                                {"nonzero_pairs", s.nonzero_pairs},
                                {"nonzero_pairs_exact", s.nonzero_pairs_exact},
                                {"sum_of_counts", s.sum_of_counts},
                                {"inputs", s.inputs},
                                {"input_paths", s.input_paths},
                                {"partly_ingested", s.partly_ingested},
                                {"size_on_disk", s.size_on_disk},
                                {"derived_bytes", s.derived_bytes}};
    // Paths are bytes, not always UTF-8: an invalid sequence becomes U+FFFD.
    fmt::print("{}\n", out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    return Status::OK();
  }
  const char* weighting = s.weighting == DistanceWeighting::kHarmonic ? ", 1/d weighting"
                          : s.weighting == DistanceWeighting::kLinear ? ", (W-d+1)/W weighting"
                                                                      : ", unweighted";
  const std::string subsampled =
      s.subsample > 0 ? fmt::format(", subsampled before windowing (t = {})", s.subsample) : "";
  fmt::print(
      "store            {}\nformat version   {}\nwindow           {}{}{}{}\nvocabulary       {} "
      "words{}\n"
      "tokens           {}\nnon-zero pairs   {}{}{}\nsum of counts    {:.3f}\ninputs ingested  "
      "{}{}\n"
      "size on disk     {} ({}{:.2f} bytes per pair)\n{}",
      store_, s.format_version, s.window, s.symmetric ? ", symmetric" : ", asymmetric", weighting,
      subsampled, s.words,
      s.fixed_vocabulary
          ? " (fixed)"
          : fmt::format(" (grows; {} seen at least {} times{}; the last ingest that added words "
                        "added {})",
                        s.vocab_size, s.min_count,
                        s.max_vocab > 0 ? fmt::format(", at most {}", s.max_vocab) : "",
                        s.last_added_words),
      s.tokens, s.nonzero_pairs_exact ? "" : "at most ", s.nonzero_pairs,
      s.nonzero_pairs_exact ? "" : " (batches met earlier pairs; --exact counts them)",
      s.sum_of_counts, s.inputs, s.partly_ingested ? " (and one partly)" : "",
      FormatBytes(s.size_on_disk), s.nonzero_pairs_exact ? "" : "at least ",
      s.nonzero_pairs ? static_cast<double>(s.size_on_disk) / s.nonzero_pairs : 0.0,
      s.phrases.empty() ? "" : fmt::format("phrases joined   the list {}\n", s.phrases));
  if (s.derived_bytes > 0)
    fmt::print("derived data     {} (subfolders: training's block stream)\n",
               FormatBytes(s.derived_bytes));
  return Status::OK();
}

VerifyCommand::VerifyCommand(CLI::App* parent) {
  app_ = parent->add_subcommand(
      "verify",
      "Check a store's invariants: metadata, vocabulary, checksums, pairs, symmetry, inputs");
  app_->add_option("--store", store_, "Store directory")->required();
}

Status VerifyCommand::Run() {
  VerifyReport report;
  SG_RETURN_IF_ERROR(VerifyStore(store_, kStoreReadMemoryBytes, &report));
  for (const std::string& c : report.checks) fmt::print("ok: {}\n", c);
  for (const std::string& p : report.problems) fmt::print("PROBLEM: {}\n", p);
  if (!report.problems.empty()) {
    return Status::Corruption(
        fmt::format("{}: {} problems found (listed on stdout)", store_, report.problems.size()));
  }
  return Status::OK();
}

DumpCommand::DumpCommand(CLI::App* parent) {
  app_ = parent->add_subcommand(
      "dump",
      "Write a store's counts (text lines or Stanford GloVe's cooccurrence.bin) or its "
      "vocabulary");
  app_->add_option("--store", store_, "Store directory")->required();
  app_->add_option("--format", format_,
                   "text ('word1 word2 count'), glove (binary records) or vocab (Stanford's "
                   "vocab.txt: 'word count' lines)")
      ->capture_default_str()
      ->check(CLI::IsMember({"text", "glove", "vocab"}));
  app_->add_option("-o,--output", output_, "Output file (- for stdout)")->capture_default_str();
  app_->add_option("--min-count", min_count_,
                   "Only words seen at least this often (0: the store's cut)")
      ->capture_default_str();
  app_->add_option("--max-vocab", max_vocab_,
                   "...and at most this many, the most frequent (0: the store's cut)")
      ->capture_default_str();
}

Status DumpCommand::Run() {
  return DumpStore(store_, kStoreReadMemoryBytes,
                   format_ == "glove"   ? DumpFormat::kGlove
                   : format_ == "vocab" ? DumpFormat::kVocab
                                        : DumpFormat::kText,
                   min_count_, max_vocab_, output_);
}

}  // namespace streamglove
