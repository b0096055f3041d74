#include "plot/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace streamglove {

namespace {

constexpr double kWidth = 820, kHeight = 560;
constexpr double kLeft = 90, kTop = 56, kBottom = 70;
// A point label's size at font-size 12, for placing labels apart (sans-serif
// letters average about 0.6 of the font size).
constexpr double kLabelCharWidth = 7.2, kLabelHeight = 12;
// Colour-blind-safe series colours (Okabe and Ito).
constexpr const char* kColours[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                    "#E69F00", "#56B4E9", "#000000"};

std::string Escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

size_t CodePoints(const std::string& s) {
  return static_cast<size_t>(
      std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

// A tick's label: as few digits as tell the ticks apart.
std::string TickLabel(double v, double step) {
  const int decimals = std::max(0, static_cast<int>(std::ceil(-std::log10(step) - 1e-9)));
  if (std::abs(v) < step * 1e-9) v = 0;  // no "-0"
  return fmt::format("{:.{}f}", v, decimals);
}

}  // namespace

std::vector<double> NiceTicks(double lo, double hi, int target) {
  if (!(hi > lo)) hi = lo + 1;
  const double raw = (hi - lo) / std::max(1, target);
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  double step = power;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * power;
    if (step >= raw) break;
  }
  // From the last tick at or below lo to the first at or above hi, so the
  // axes end on labelled values.
  std::vector<double> ticks;
  const auto first = static_cast<long long>(std::floor(lo / step + 1e-9));
  const auto last = static_cast<long long>(std::ceil(hi / step - 1e-9));
  for (long long k = first; k <= last; ++k) ticks.push_back(static_cast<double>(k) * step);
  return ticks;
}

SvgChart::SvgChart(std::string title, std::string x_label, std::string y_label)
    : title_(std::move(title)), x_label_(std::move(x_label)), y_label_(std::move(y_label)) {}

void SvgChart::AddLine(std::string name, std::vector<std::pair<double, double>> points) {
  lines_.push_back({std::move(name), std::move(points)});
}

void SvgChart::AddPoint(double x, double y, std::string label) {
  points_.push_back({x, y, std::move(label)});
}

std::string SvgChart::Render() const {
  double x_lo = std::numeric_limits<double>::infinity(), x_hi = -x_lo, y_lo = x_lo, y_hi = -x_lo;
  const auto extend = [&](double x, double y) {
    x_lo = std::min(x_lo, x), x_hi = std::max(x_hi, x), y_lo = std::min(y_lo, y),
    y_hi = std::max(y_hi, y);
  };
  for (const Line& l : lines_) {
    for (const auto& [x, y] : l.points) extend(x, y);
  }
  for (const Point& p : points_) extend(p.x, p.y);
  if (!(x_hi >= x_lo)) x_lo = 0, x_hi = 1, y_lo = 0, y_hi = 1;
  if (!points_.empty()) {  // room for the dots and the start of their labels
    const double dx = (x_hi - x_lo) * 0.04, dy = (y_hi - y_lo) * 0.04;
    x_lo -= dx, x_hi += dx, y_lo -= dy, y_hi += dy;
  }
  const std::vector<double> x_ticks = NiceTicks(x_lo, x_hi, 8), y_ticks = NiceTicks(y_lo, y_hi, 6);
  x_lo = x_ticks.front(), x_hi = x_ticks.back(), y_lo = y_ticks.front(), y_hi = y_ticks.back();
  const double right = lines_.size() > 1 ? 200 : 30;
  const double plot_w = kWidth - kLeft - right, plot_h = kHeight - kTop - kBottom;
  const auto sx = [&](double x) { return kLeft + (x - x_lo) / (x_hi - x_lo) * plot_w; };
  const auto sy = [&](double y) { return kTop + (1 - (y - y_lo) / (y_hi - y_lo)) * plot_h; };

  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} "
      "{1}\" "
      "font-family=\"sans-serif\" font-size=\"13\">\n<rect width=\"100%\" height=\"100%\" "
      "fill=\"white\"/>\n",
      kWidth, kHeight);
  svg += fmt::format(
      "<text x=\"{}\" y=\"30\" text-anchor=\"middle\" font-size=\"17\" "
      "font-weight=\"bold\">{}</text>\n",
      kLeft + plot_w / 2, Escape(title_));
  const double x_step = x_ticks.size() > 1 ? x_ticks[1] - x_ticks[0] : 1;
  const double y_step = y_ticks.size() > 1 ? y_ticks[1] - y_ticks[0] : 1;
  for (double t : x_ticks) {
    svg += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#e4e4e4\"/>\n",
        sx(t), kTop, kTop + plot_h);
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n", sx(t),
                       kTop + plot_h + 20, TickLabel(t, x_step));
  }
  for (double t : y_ticks) {
    svg += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\" stroke=\"#e4e4e4\"/>\n",
        kLeft, sy(t), kLeft + plot_w);
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n", kLeft - 8,
                       sy(t) + 4, TickLabel(t, y_step));
  }
  svg += fmt::format(
      "<rect x=\"{}\" y=\"{}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"none\" "
      "stroke=\"#333\"/>\n",
      kLeft, kTop, plot_w, plot_h);
  svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n",
                     kLeft + plot_w / 2, kHeight - 22, Escape(x_label_));
  svg += fmt::format(
      "<text transform=\"translate(22 {:.1f}) rotate(-90)\" text-anchor=\"middle\">{}</text>\n",
      kTop + plot_h / 2, Escape(y_label_));
  for (size_t i = 0; i < lines_.size(); ++i) {
    const char* colour = kColours[i % std::size(kColours)];
    std::string path;
    for (const auto& [x, y] : lines_[i].points) path += fmt::format("{:.1f},{:.1f} ", sx(x), sy(y));
    svg += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"/>\n",
                       path, colour);
    for (const auto& [x, y] : lines_[i].points) {
      svg += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"2.5\" fill=\"{}\"/>\n", sx(x),
                         sy(y), colour);
    }
    if (lines_.size() > 1) {
      const double ly = kTop + 10 + 20 * static_cast<double>(i), lx = kLeft + plot_w + 14;
      svg += fmt::format(
          "<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"{3}\" stroke-width=\"2\"/>\n",
          lx, ly, lx + 22, colour);
      svg += fmt::format("<text x=\"{}\" y=\"{}\">{}</text>\n", lx + 28, ly + 4,
                         Escape(lines_[i].name));
    }
  }
  // Each label goes to the first of eight places around its dot where it
  // overlaps no label placed before and stays inside the frame (or, failing
  // all, above right), so close words stay readable.
  struct Box {
    double x0, y0, x1, y1;
    bool Overlaps(const Box& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
  };
  std::vector<Box> placed;
  for (const Point& p : points_) {
    const double px = sx(p.x), py = sy(p.y);
    svg += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"#0072B2\"/>\n", px, py);
    const double w = kLabelCharWidth * static_cast<double>(CodePoints(p.label)), h = kLabelHeight;
    static constexpr double kPlaces[][2] = {{5, -4}, {5, 13}, {-5, -4},   {-5, 13},
                                            {5, 4},  {-5, 4}, {-0.5, -8}, {-0.5, 18}};
    Box best{};
    double best_x = 0;
    bool found = false;
    for (const auto& [dx, dy] : kPlaces) {
      // dx < 0: the label ends left of the dot; -0.5: centred on it.
      const double x0 = dx == -0.5 ? px - w / 2 : dx < 0 ? px + dx - w : px + dx;
      const Box box{x0, py + dy - h, x0 + w, py + dy + 2};
      const bool inside =
          box.x0 >= kLeft && box.x1 <= kLeft + plot_w && box.y0 >= kTop && box.y1 <= kTop + plot_h;
      const bool free =
          std::none_of(placed.begin(), placed.end(), [&](const Box& b) { return b.Overlaps(box); });
      if (inside && free) {
        best = box, best_x = x0, found = true;
        break;
      }
    }
    if (!found) best = {px + 5, py - 4 - h, px + 5 + w, py - 2}, best_x = px + 5;
    placed.push_back(best);
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"12\">{}</text>\n", best_x,
                       best.y1 - 2, Escape(p.label));
  }
  svg += "</svg>\n";
  return svg;
}

}  // namespace streamglove
