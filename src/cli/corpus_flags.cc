#include "cli/corpus_flags.h"

#include "streamglove/phrases.h"
#include "streamglove/units.h"

namespace streamglove {

void CorpusFlags::Register(CLI::App* app, bool phrases) {
  app->add_option("INPUT", inputs_,
                  "Corpus files (.txt, .zst, .gz, .xz, .bz2; .jsonl[.zst|...] as JSONL, "
                  ".wet[.gz|...] as WET), directories "
                  "(read recursively, sorted), or - for stdin")
      ->required();
  app->add_option(
         "--format", format_,
         "Input format: auto (by name; WET also by a leading WARC header), text, jsonl or wet "
         "(Common Crawl's WARC records: each conversion record's text is a page)")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "text", "jsonl", "wet"}));
  app->add_option("--json-field", json_field_, "JSONL field holding the text")
      ->capture_default_str();
  app->add_option(
         "--tokenizer", tokenizer_,
         "whitespace (byte-exact with Stanford GloVe), words (Unicode words and "
         "punctuation) or icu (ICU's word rules and dictionaries: for Chinese, Japanese, Thai and "
         "other languages written without spaces)")
      ->capture_default_str()
      ->check(CLI::IsMember({"whitespace", "words", "icu"}));
  app->add_flag("--lowercase", lowercase_, "Lowercase tokens (Unicode simple case mapping)");
  app->add_option("--max-line-bytes", max_line_, "Longest text line or JSONL record accepted")
      ->capture_default_str();
  app->add_flag(
      "--skip-bad-records", skip_bad_records_,
      "Skip and count text lines with invalid UTF-8 or NUL bytes, malformed JSONL records and "
      "malformed WARC records "
      "(default: the first one is an error)");
  if (phrases) {
    app->add_option("--phrases", phrases_,
                    "Join the phrases of this list (`streamglove phrases` writes one) into one "
                    "token each before counting: new york -> new_york");
  }
}

Status CorpusFlags::Resolve(CorpusOptions* options, std::vector<InputFile>* inputs) const {
  SG_RETURN_IF_ERROR(ResolveOptions(options));
  return Expand(*options, inputs);
}

Status CorpusFlags::Expand(const CorpusOptions& options, std::vector<InputFile>* inputs) const {
  return ExpandInputs(inputs_, options.format, inputs);
}

Status CorpusFlags::ResolveOptions(CorpusOptions* options) const {
  // Both checked by IsMember.
  ParseNamed(format_,
             {InputFormat::kAuto, InputFormat::kText, InputFormat::kJsonl, InputFormat::kWet},
             InputFormatName, &options->format);
  ParseNamed(tokenizer_, {TokenizerKind::kWhitespace, TokenizerKind::kWords, TokenizerKind::kIcu},
             TokenizerKindName, &options->tokenizer);
  options->json_field = json_field_;
  options->lowercase = lowercase_;
  options->skip_bad_records = skip_bad_records_;
  if (Status s = ParseByteSize(max_line_, &options->max_record_bytes); !s.ok()) {
    return Status::InvalidArgument("--max-line-bytes: " + s.message());
  }
  if (!phrases_.empty()) SG_RETURN_IF_ERROR(PhraseList::Read(phrases_, &options->phrases));
  return ValidateCorpusOptions(*options);
}

Status ParseMemoryFlag(const std::string& text, size_t* bytes) {
  Status s = ParseByteSize(text, bytes);
  if (!s.ok()) return Status::InvalidArgument("--memory: " + s.message());
  return Status::OK();
}

}  // namespace streamglove
