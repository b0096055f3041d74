// `streamglove train`: GloVe vectors from a store.
#ifndef STREAMGLOVE_CLI_TRAIN_COMMAND_H_
#define STREAMGLOVE_CLI_TRAIN_COMMAND_H_

#include <string>

#include "cli/command.h"
#include "streamglove/train.h"
#include "streamglove/units.h"

namespace streamglove {

// The lines `train` (and `embed`) print on stderr: what a budget planned,
// each epoch, and the end.
void PrintTrainPlan(double budget_seconds, const std::string& plan_path, const TrainStats& s);
void PrintTrainEpoch(const TrainStats& s, const EpochStats& e);
void PrintTrainSummary(const TrainOptions& o, const std::string& output, const TrainStats& stats);

class TrainCommand final : public Command {
 public:
  explicit TrainCommand(CLI::App* parent);
  Status Validate() override;
  Status Run() override;

 private:
  std::string store_;
  std::string output_;
  std::string memory_ = FormatByteSize(TrainOptions().memory_bytes);
  std::string device_memory_;  // empty: TrainOptions' default
  std::string vectors_;        // empty: TrainOptions' default
  double noise_power_ = 0;     // given: TrainOptions::noise_power
  float context_weight_ = 0;   // given: TrainOptions::context_weight
  std::string format_ = "glove";
  std::string compression_ = "auto";
  std::string schedule_ = "auto";
  std::string preset_;
  std::string objective_ = ObjectiveName(TrainOptions().objective);
  std::string device_ = TrainDeviceName(TrainOptions().device);
  std::string budget_;
  bool quiet_ = false;
  TrainOptions options_;
};

}  // namespace streamglove

#endif  // STREAMGLOVE_CLI_TRAIN_COMMAND_H_
