// Flags shared by every command that reads a corpus (vocab, ingest, embed,
// phrases).
#ifndef STREAMGLOVE_CLI_CORPUS_FLAGS_H_
#define STREAMGLOVE_CLI_CORPUS_FLAGS_H_

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "streamglove/corpus_reader.h"
#include "streamglove/options.h"
#include "streamglove/units.h"

namespace streamglove {

class CorpusFlags {
 public:
  // Registers INPUT... and the reading/tokenizing flags on `app`, with
  // --phrases (a list joined before counting) unless `!phrases`.
  void Register(CLI::App* app, bool phrases = true);
  // Fills *options and expands the inputs; errors are usage errors.
  Status Resolve(CorpusOptions* options, std::vector<InputFile>* inputs) const;
  // The two halves of Resolve(): the options alone (the same on every rank
  // of an MPI job), then the inputs (which a machine may not see).
  Status ResolveOptions(CorpusOptions* options) const;
  Status Expand(const CorpusOptions& options, std::vector<InputFile>* inputs) const;

 private:
  std::vector<std::string> inputs_;
  std::string format_ = "auto";
  std::string tokenizer_ = "whitespace";
  std::string json_field_ = CorpusOptions().json_field;
  bool lowercase_ = CorpusOptions().lowercase;
  bool skip_bad_records_ = CorpusOptions().skip_bad_records;
  std::string max_line_ = FormatByteSize(CorpusOptions().max_record_bytes);
  std::string phrases_;
};

// Parses --memory and --threads style values shared by commands.
Status ParseMemoryFlag(const std::string& text, size_t* bytes);

}  // namespace streamglove

#endif  // STREAMGLOVE_CLI_CORPUS_FLAGS_H_
