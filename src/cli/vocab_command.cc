#include "cli/vocab_command.h"

#include <fmt/format.h>

#include "streamglove/units.h"

namespace streamglove {

VocabCommand::VocabCommand(CLI::App* parent) {
  app_ = parent->add_subcommand(
      "vocab",
      "Count word frequencies and write a vocabulary file (Stanford GloVe's format: "
      "'word count' lines, count descending, ties in byte order)");
  corpus_flags_.Register(app_);
  app_->add_option("-o,--output", output_, "Vocabulary file to write (- for stdout)")->required();
  app_->add_option("--min-count", options_.min_count, "Drop words seen fewer times")
      ->capture_default_str();
  app_->add_option("--max-vocab", options_.max_vocab,
                   "Keep at most this many words, the most frequent (0: no limit)")
      ->capture_default_str();
  app_->add_option("--memory", memory_,
                   "Peak memory of the whole process (e.g. 512M, 4G); counts spill to disk "
                   "beyond it")
      ->capture_default_str();
  app_->add_option("--threads", options_.threads, "Worker threads (0: one per core)")
      ->capture_default_str();
  app_->add_option("--temp-dir", options_.temp_dir,
                   "Directory for spill files (default: $TMPDIR or /tmp)");
  app_->add_flag("-q,--quiet", quiet_, "No progress line or summary");
}

Status VocabCommand::Validate() {
  SG_RETURN_IF_ERROR(ParseMemoryFlag(memory_, &options_.memory_bytes));
  options_.progress = !quiet_;
  SG_RETURN_IF_ERROR(ValidateVocabOptions(options_));
  return corpus_flags_.Resolve(&corpus_, &inputs_);
}

Status VocabCommand::Run() {
  VocabStats stats;
  SG_RETURN_IF_ERROR(BuildVocabulary(inputs_, corpus_, options_, output_, &stats));
  if (quiet_) return Status::OK();
  fmt::print(stderr,
             "vocab: {} tokens, {} distinct words, {} written to {} in {:.2f} s "
             "({}/s read, {} threads, {} spill runs)\n",
             stats.tokenizer.tokens, stats.distinct_words, stats.kept_words, output_, stats.seconds,
             FormatBytes(stats.bytes_read / std::max(stats.seconds, 1e-9)), stats.threads,
             stats.spill_runs);
  if (stats.bad_records > 0) {
    fmt::print(stderr, "vocab: skipped {} bad records (the first: {})\n", stats.bad_records,
               stats.first_bad_record);
  }
  if (stats.tokenizer.truncated_tokens > 0) {
    fmt::print(stderr, "vocab: warning: {} tokens longer than {} bytes were cut\n",
               stats.tokenizer.truncated_tokens, kMaxTokenBytes);
  }
  return Status::OK();
}

}  // namespace streamglove
