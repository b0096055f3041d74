// `streamglove phrases`: find a corpus's phrases (streamglove/phrases.h) and
// write their list, which `ingest --phrases` and `embed --phrases` join.
#ifndef STREAMGLOVE_CLI_PHRASES_COMMAND_H_
#define STREAMGLOVE_CLI_PHRASES_COMMAND_H_

#include <optional>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/corpus_flags.h"
#include "streamglove/phrases.h"
#include "streamglove/units.h"

namespace streamglove {

class PhrasesCommand final : public Command {
 public:
  explicit PhrasesCommand(CLI::App* parent);
  Status Validate() override;
  Status Run() override;

 private:
  CorpusFlags corpus_flags_;
  std::string store_;
  std::string output_;
  std::string score_ = PhraseScoreName(PhraseOptions().score);
  std::optional<double> threshold_;
  std::string memory_ = FormatByteSize(PhraseOptions().memory_bytes);
  bool quiet_ = false;

  CorpusOptions corpus_;
  PhraseOptions options_;
  std::vector<InputFile> inputs_;
};

}  // namespace streamglove

#endif  // STREAMGLOVE_CLI_PHRASES_COMMAND_H_
