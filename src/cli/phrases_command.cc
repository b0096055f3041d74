#include "cli/phrases_command.h"

#include <fmt/format.h>

namespace streamglove {

PhrasesCommand::PhrasesCommand(CLI::App* parent) {
  app_ = parent->add_subcommand(
      "phrases",
      "Find phrases (new york -> new_york) as word2phrase does, over a corpus of any size: each "
      "pass counts the corpus's adjacent word pairs into a store (bounded by --memory, resumable, "
      "and added to by a rerun with more inputs), scores them, and the next pass joins what it "
      "found. Writes the list that ingest and embed take as --phrases.");
  corpus_flags_.Register(app_, /*phrases=*/false);
  app_->add_option("--store", store_,
                   "Directory of the passes' bigram stores (pass-1, pass-2, ...), kept for reruns")
      ->required();
  app_->add_option("-o,--output", output_, "Phrase list to write (docs/formats.md)")->required();
  app_->add_option("--score", score_,
                   "word2phrase ((c_ab - min_count) / (c_a c_b) * N) or npmi (normalised PMI, in "
                   "[-1, 1])")
      ->capture_default_str()
      ->check(CLI::IsMember({"word2phrase", "npmi"}));
  app_->add_option("--threshold", threshold_,
                   "A pair scoring above it is a phrase (default: 100 for word2phrase, 0.5 for "
                   "npmi)");
  app_->add_option("--min-count", options_.min_count,
                   "A phrase and each of its words are seen at least this often")
      ->capture_default_str();
  app_->add_option("--passes", options_.passes,
                   "Passes; each joins what the ones before found, so 2 make phrases of up to 4 "
                   "words")
      ->capture_default_str();
  app_->add_option("--memory", memory_, "Peak memory of the whole process")->capture_default_str();
  app_->add_option("--threads", options_.threads, "Worker threads (0: one per core)")
      ->capture_default_str();
  app_->add_flag("-q,--quiet", quiet_, "No progress line or summary");
}

Status PhrasesCommand::Validate() {
  SG_RETURN_IF_ERROR(ParseMemoryFlag(memory_, &options_.memory_bytes));
  ParseNamed(score_, {PhraseScore::kWord2Phrase, PhraseScore::kNpmi}, PhraseScoreName,
             &options_.score);  // checked by IsMember
  options_.threshold = threshold_.value_or(options_.score == PhraseScore::kNpmi ? 0.5 : 100);
  options_.progress = !quiet_;
  SG_RETURN_IF_ERROR(ValidatePhraseOptions(options_));
  return corpus_flags_.Resolve(&corpus_, &inputs_);
}

Status PhrasesCommand::Run() {
  std::vector<Phrase> found;
  PhraseStats stats;
  SG_RETURN_IF_ERROR(FindPhrases(store_, inputs_, corpus_, options_, &found, &stats));
  const size_t total = found.size();
  SG_RETURN_IF_ERROR(PhraseList(std::move(found)).Write(output_));
  if (quiet_) return Status::OK();
  for (const std::string& m : stats.messages) fmt::print(stderr, "phrases: {}\n", m);
  for (size_t i = 0; i < stats.passes.size(); ++i) {
    const PhrasePassStats& p = stats.passes[i];
    fmt::print(stderr, "phrases: pass {}: {} tokens, {} distinct bigrams, {} phrases ({:.2f} s)\n",
               i + 1, p.tokens, p.bigrams, p.phrases, p.seconds);
  }
  fmt::print(stderr, "phrases: {} phrases ({} > {}) written to {}\n", total,
             PhraseScoreName(options_.score), options_.threshold, output_);
  return Status::OK();
}

}  // namespace streamglove
