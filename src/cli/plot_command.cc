#include "cli/plot_command.h"

#include "streamglove/plot.h"

namespace streamglove {

PlotLossCommand::PlotLossCommand(CLI::App* plot) {
  app_ = plot->add_subcommand(
      "loss", "The training loss per epoch of one or more runs (their OUT.log.tsv), as SVG");
  app_->add_option("LOG", logs_, "Loss logs written by train (OUT.log.tsv)")
      ->required()
      ->check(CLI::ExistingFile);
  app_->add_option("-o,--output", output_, "SVG file to write")->required();
  app_->add_option("--title", title_, "Chart title")->capture_default_str();
}

Status PlotLossCommand::Run() { return PlotLoss(logs_, title_, output_); }

PlotMapCommand::PlotMapCommand(CLI::App* plot) {
  app_ = plot->add_subcommand("map",
                              "Words on the plane of their first two principal components (PCA "
                              "over the words shown), as SVG");
  app_->add_option("VECTORS", vectors_, "Vectors file (GloVe or word2vec format)")->required();
  app_->add_option("-o,--output", output_, "SVG file to write")->required();
  app_->add_option(
          "--words", words_,
          "The words to show (comma-separated or repeated); default: the --top most frequent")
      ->delimiter(',');
  app_->add_option(
          "--top", top_,
          "Without --words: the first N words of the file (vectors files list them by frequency)")
      ->capture_default_str();
  app_->add_option("--title", title_, "Chart title (default: the vectors file's name)");
}

Status PlotMapCommand::Validate() {
  if (words_.empty() && (top_ < 2 || top_ > 5000))
    return Status::InvalidArgument("--top must be between 2 and 5000");
  if (!words_.empty() && words_.size() < 2)
    return Status::InvalidArgument("--words needs at least two words");
  return Status::OK();
}

Status PlotMapCommand::Run() {
  return PlotMap(vectors_, MapPlotOptions{words_, top_, title_}, output_);
}

}  // namespace streamglove
