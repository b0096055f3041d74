// `streamglove eval analogy|similarity`, `neighbors` and `analogy`: scoring
// and querying any vectors file.
#ifndef STREAMGLOVE_CLI_EVAL_COMMANDS_H_
#define STREAMGLOVE_CLI_EVAL_COMMANDS_H_

#include <string>
#include <vector>

#include "cli/command.h"
#include "streamglove/eval.h"

namespace streamglove {

// Flags every eval and query command shares: the vectors file and how words
// are matched.
struct EvalFlags {
  std::string vectors;
  std::string case_mode = "lower";
  uint32_t restrict_vocab = 0;
  bool json = false;
  bool quiet = false;

  void Register(CLI::App* app, bool with_restrict);
  CaseMode Mode() const;
};

class EvalAnalogyCommand final : public Command {
 public:
  explicit EvalAnalogyCommand(CLI::App* eval);
  Status Validate() override;
  Status Run() override;

 private:
  EvalFlags flags_;
  std::string method_ = "3cosadd";
  std::vector<std::string> files_;
  AnalogyOptions options_;
};

class EvalSimilarityCommand final : public Command {
 public:
  explicit EvalSimilarityCommand(CLI::App* eval);
  Status Validate() override { return Status::OK(); }
  Status Run() override;

 private:
  EvalFlags flags_;
  std::vector<std::string> files_;
};

// `neighbors VECTORS WORD...` and `analogy VECTORS A B C`; with no words, one
// query per line of standard input.
class QueryCommand final : public Command {
 public:
  enum class Kind { kNeighbors, kAnalogy };
  QueryCommand(CLI::App* parent, Kind kind);
  Status Validate() override;
  Status Run() override;

 private:
  Status Answer(const Embeddings& embeddings, const WordMatcher& matcher,
                const std::vector<std::string>& words) const;
  const Kind kind_;
  EvalFlags flags_;
  std::vector<std::string> words_;
  uint32_t k_ = 10;
};

// `print-word-vectors VECTORS`: "word v1 ... vd" for each word of standard
// input (whitespace-separated), as fastText's print-word-vectors: a subword
// model answers any word; a word without a vector prints zeros, as fastText
// does, and is counted on stderr.
class PrintWordVectorsCommand final : public Command {
 public:
  explicit PrintWordVectorsCommand(CLI::App* parent);
  Status Validate() override { return Status::OK(); }
  Status Run() override;

 private:
  EvalFlags flags_;
};

}  // namespace streamglove

#endif  // STREAMGLOVE_CLI_EVAL_COMMANDS_H_
