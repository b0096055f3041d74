#include "cli/plot_command.h"

#include <charconv>
#include <filesystem>

#include <fmt/format.h>

#include "plot/pca.h"
#include "plot/svg_chart.h"
#include "streamglove/embeddings.h"
#include "util/file.h"

namespace streamglove {

namespace {

// A loss log's (epoch, loss) pairs: the header line, then "epoch<TAB>loss<TAB>...".
Status ReadLossLog(const std::string& path, std::vector<std::pair<double, double>>* points) {
  std::string text;
  SG_RETURN_IF_ERROR(ReadFileToString(path, &text));
  points->clear();
  size_t line_no = 0;
  for (size_t pos = 0; pos < text.size();) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    const std::string_view line(text.data() + pos, end - pos);
    pos = end + 1;
    if (++line_no == 1 || line.empty()) continue;  // the header
    const size_t tab1 = line.find('\t'), tab2 = line.find('\t', tab1 + 1);
    double epoch = 0, loss = 0;
    const bool ok =
        tab1 != std::string_view::npos &&
        std::from_chars(line.data(), line.data() + tab1, epoch).ec == std::errc() &&
        std::from_chars(line.data() + tab1 + 1, line.data() + std::min(tab2, line.size()), loss)
                .ec == std::errc();
    if (!ok)
      return Status::Corruption(
          fmt::format("{}: line {}: expected \"epoch<TAB>loss...\"", path, line_no));
    points->emplace_back(epoch, loss);
  }
  if (points->empty())
    return Status::Corruption(fmt::format("{}: no epochs in the loss log", path));
  return Status::OK();
}

Status WriteSvg(const std::string& path, const std::string& svg) {
  WritableFile file;
  SG_RETURN_IF_ERROR(file.Open(path));
  SG_RETURN_IF_ERROR(file.Append(svg));
  return file.Close(/*sync=*/false);
}

std::string RunName(const std::string& log) {
  std::string name = std::filesystem::path(log).filename().string();
  for (const char* suffix : {".txt.log.tsv", ".log.tsv", ".tsv"}) {
    if (name.ends_with(suffix))
      return name.substr(0, name.size() - std::string_view(suffix).size());
  }
  return name;
}

}  // namespace

PlotLossCommand::PlotLossCommand(CLI::App* plot) {
  app_ = plot->add_subcommand(
      "loss", "The training loss per epoch of one or more runs (their OUT.log.tsv), as SVG");
  app_->add_option("LOG", logs_, "Loss logs written by train (OUT.log.tsv)")
      ->required()
      ->check(CLI::ExistingFile);
  app_->add_option("-o,--output", output_, "SVG file to write")->required();
  app_->add_option("--title", title_, "Chart title")->capture_default_str();
}

Status PlotLossCommand::Run() {
  SvgChart chart(title_, "epoch", "mean training loss (per pair or update, as train logs it)");
  for (const std::string& log : logs_) {
    std::vector<std::pair<double, double>> points;
    SG_RETURN_IF_ERROR(ReadLossLog(log, &points));
    chart.AddLine(RunName(log), std::move(points));
  }
  return WriteSvg(output_, chart.Render());
}

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
  Embeddings vectors;
  SG_RETURN_IF_ERROR(vectors.Load(vectors_));
  std::vector<uint32_t> rows;
  if (words_.empty()) {
    for (uint32_t i = 0; i < std::min(top_, vectors.size()); ++i) rows.push_back(i);
  } else {
    for (const std::string& w : words_) {
      const uint32_t row = vectors.Find(w);
      if (row == Embeddings::kNotFound) {
        return Status::NotFound(fmt::format("{}: no vector for \"{}\"", vectors_, w));
      }
      rows.push_back(row);
    }
  }
  if (rows.size() < 2)
    return Status::InvalidArgument(fmt::format("{}: fewer than two words to map", vectors_));
  std::vector<double> values;
  values.reserve(rows.size() * vectors.dim());
  for (uint32_t r : rows) {
    for (uint32_t k = 0; k < vectors.dim(); ++k) values.push_back(vectors.value(r, k));
  }
  const Projection2D map = ProjectOnTopComponents(values, vectors.dim());
  const double share = map.total_variance > 0 ? 100 / map.total_variance : 0;
  SvgChart chart(
      title_.empty() ? std::filesystem::path(vectors_).filename().string() : title_,
      fmt::format("first principal component ({:.1f}% of the variance)", map.variance[0] * share),
      fmt::format("second principal component ({:.1f}%)", map.variance[1] * share));
  for (size_t i = 0; i < rows.size(); ++i)
    chart.AddPoint(map.points[i][0], map.points[i][1], vectors.word(rows[i]));
  return WriteSvg(output_, chart.Render());
}

}  // namespace streamglove
