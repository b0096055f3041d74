// `streamglove vocab`: count word frequencies into a GloVe vocabulary file.
#ifndef STREAMGLOVE_CLI_VOCAB_COMMAND_H_
#define STREAMGLOVE_CLI_VOCAB_COMMAND_H_

#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/corpus_flags.h"
#include "streamglove/units.h"
#include "streamglove/vocabulary.h"

namespace streamglove {

class VocabCommand final : public Command {
 public:
  explicit VocabCommand(CLI::App* parent);
  Status Validate() override;
  Status Run() override;

 private:
  CorpusFlags corpus_flags_;
  std::string output_;
  std::string memory_ = FormatByteSize(VocabOptions().memory_bytes);
  bool quiet_ = false;

  CorpusOptions corpus_;
  VocabOptions options_;
  std::vector<InputFile> inputs_;
};

}  // namespace streamglove

#endif  // STREAMGLOVE_CLI_VOCAB_COMMAND_H_
