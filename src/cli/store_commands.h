// `streamglove ingest`, `stats` and `dump`: building and reading a store.
#ifndef STREAMGLOVE_CLI_STORE_COMMANDS_H_
#define STREAMGLOVE_CLI_STORE_COMMANDS_H_

#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/corpus_flags.h"
#include "streamglove/ingest.h"
#include "streamglove/store_info.h"
#include "streamglove/units.h"

namespace streamglove {

struct DistributedIngestStats;  // streamglove/distributed_ingest.h

// The summary line `ingest` (and `embed`) print on stderr.
void PrintIngestSummary(const IngestStats& stats);

class IngestCommand final : public Command {
 public:
  explicit IngestCommand(CLI::App* parent);
  Status Validate() override;
  Status Run() override;

 private:
  // The ingest as one rank of an MPI job (distributed_ingest_command.cc;
  // built with MPI only).
  Status RunDistributed();
  // Rank 0's messages, then its summary or error line.
  void ReportDistributed(const Status& s, const DistributedIngestStats& stats) const;

  CorpusFlags corpus_flags_;
  std::string store_;
  std::string memory_ = FormatByteSize(IngestOptions().memory_bytes);
  std::string batch_size_ = FormatByteSize(IngestOptions().batch_bytes);
  std::string max_dense_ = "0";
  std::string max_buffer_ = "0";
  bool asymmetric_ = false;
  std::string weighting_ = DistanceWeightingName(IngestOptions().weighting);
  bool no_distance_weighting_ = false;
  bool quiet_ = false;
  CLI::Option* cut_flags_[2] = {};  // --min-count, --max-vocab: given or not

  CorpusOptions corpus_;
  IngestOptions options_;
  std::vector<InputFile> inputs_;
};

class StatsCommand final : public Command {
 public:
  explicit StatsCommand(CLI::App* parent);
  Status Validate() override;
  Status Run() override;

 private:
  std::string store_;
  bool json_ = false;
  bool exact_ = false;
  StatsOptions options_;
};

class VerifyCommand final : public Command {
 public:
  explicit VerifyCommand(CLI::App* parent);
  Status Validate() override { return Status::OK(); }
  Status Run() override;

 private:
  std::string store_;
};

class DumpCommand final : public Command {
 public:
  explicit DumpCommand(CLI::App* parent);
  Status Validate() override { return Status::OK(); }
  Status Run() override;

 private:
  std::string store_;
  std::string format_ = "text";
  std::string output_ = "-";
  uint64_t min_count_ = 0;  // 0: the store's cut
  uint64_t max_vocab_ = 0;
};

}  // namespace streamglove

#endif  // STREAMGLOVE_CLI_STORE_COMMANDS_H_
