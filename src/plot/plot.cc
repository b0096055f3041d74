#include "streamglove/plot.h"

#include <algorithm>
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

Status PlotLoss(const std::vector<std::string>& logs, const std::string& title,
                const std::string& output) {
  SvgChart chart(title, "epoch", "mean training loss (per pair or update, as train logs it)");
  for (const std::string& log : logs) {
    std::vector<std::pair<double, double>> points;
    SG_RETURN_IF_ERROR(ReadLossLog(log, &points));
    chart.AddLine(RunName(log), std::move(points));
  }
  return WriteSvg(output, chart.Render());
}

Status PlotMap(const std::string& path, const MapPlotOptions& options, const std::string& output) {
  Embeddings vectors;
  SG_RETURN_IF_ERROR(vectors.Load(path));
  std::vector<uint32_t> rows;
  if (options.words.empty()) {
    for (uint32_t i = 0; i < std::min(options.top, vectors.size()); ++i) rows.push_back(i);
  } else {
    for (const std::string& w : options.words) {
      const uint32_t row = vectors.Find(w);
      if (row == Embeddings::kNotFound) {
        return Status::NotFound(fmt::format("{}: no vector for \"{}\"", path, w));
      }
      rows.push_back(row);
    }
  }
  if (rows.size() < 2)
    return Status::InvalidArgument(fmt::format("{}: fewer than two words to map", path));
  std::vector<double> values;
  values.reserve(rows.size() * vectors.dim());
  for (uint32_t r : rows) {
    for (uint32_t k = 0; k < vectors.dim(); ++k) values.push_back(vectors.value(r, k));
  }
  const Projection2D map = ProjectOnTopComponents(values, vectors.dim());
  const double share = map.total_variance > 0 ? 100 / map.total_variance : 0;
  SvgChart chart(
      options.title.empty() ? std::filesystem::path(path).filename().string() : options.title,
      fmt::format("first principal component ({:.1f}% of the variance)", map.variance[0] * share),
      fmt::format("second principal component ({:.1f}%)", map.variance[1] * share));
  for (size_t i = 0; i < rows.size(); ++i)
    chart.AddPoint(map.points[i][0], map.points[i][1], vectors.word(rows[i]));
  return WriteSvg(output, chart.Render());
}

}  // namespace streamglove
