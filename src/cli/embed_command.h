// `streamglove embed`: corpus to vectors in one command. It ingests INPUTS
// into a store (kept beside the output, so that a later run with more inputs
// adds to it and a rerun after an interruption resumes, as `ingest` does),
// made with the settings the objective trains best from, then trains; a
// --budget covers both stages (Embed, streamglove/embed.h).
#ifndef STREAMGLOVE_CLI_EMBED_COMMAND_H_
#define STREAMGLOVE_CLI_EMBED_COMMAND_H_

#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/corpus_flags.h"
#include "streamglove/ingest.h"
#include "streamglove/train.h"

namespace streamglove {

class EmbedCommand final : public Command {
 public:
  explicit EmbedCommand(CLI::App* parent);
  Status Validate() override;
  Status Run() override;

 private:
  CorpusFlags corpus_flags_;
  std::string output_;
  std::string store_;
  std::string objective_ = "sgns";
  std::string budget_;
  double budget_seconds_ = 0;  // 0: none
  std::string memory_ = "1G";
  std::string format_ = "glove";
  uint32_t min_count_ = 5;
  bool fixed_vocab_ = false;
  bool quiet_ = false;

  CorpusOptions corpus_;
  std::vector<InputFile> inputs_;
  IngestOptions ingest_;
  TrainOptions train_;
};

}  // namespace streamglove

#endif  // STREAMGLOVE_CLI_EMBED_COMMAND_H_
