// `streamglove plot loss|map`: pictures of training, as SVG files a browser
// shows.
//
//   plot loss OUT.log.tsv... -o loss.svg   the loss per epoch of one or more
//                                          training runs (train writes the logs)
//   plot map VECTORS -o map.svg            the chosen (--words) or most
//                                          frequent (--top) words on the plane
//                                          of their first two principal components
#ifndef STREAMGLOVE_CLI_PLOT_COMMAND_H_
#define STREAMGLOVE_CLI_PLOT_COMMAND_H_

#include <string>
#include <vector>

#include "cli/command.h"

namespace streamglove {

class PlotLossCommand final : public Command {
 public:
  explicit PlotLossCommand(CLI::App* plot);
  Status Validate() override { return Status::OK(); }
  Status Run() override;

 private:
  std::vector<std::string> logs_;
  std::string output_;
  std::string title_ = "Training loss per epoch";
};

class PlotMapCommand final : public Command {
 public:
  explicit PlotMapCommand(CLI::App* plot);
  Status Validate() override;
  Status Run() override;

 private:
  std::string vectors_;
  std::string output_;
  std::vector<std::string> words_;
  uint32_t top_ = 80;
  std::string title_;
};

}  // namespace streamglove

#endif  // STREAMGLOVE_CLI_PLOT_COMMAND_H_
