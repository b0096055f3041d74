// SvgChart: a chart written as an SVG document that any browser shows: a
// title, axes with evenly spaced round-numbered ticks and their labels, line
// series with a legend, and labelled points. Only what streamglove plots
// needs; no dependency beyond the standard library.
//
// Thread-safety: a value; use from one thread at a time.
#ifndef STREAMGLOVE_PLOT_SVG_CHART_H_
#define STREAMGLOVE_PLOT_SVG_CHART_H_

#include <string>
#include <utility>
#include <vector>

namespace streamglove {

class SvgChart {
 public:
  SvgChart(std::string title, std::string x_label, std::string y_label);

  // A polyline through `points` (x, y), named in the legend.
  void AddLine(std::string name, std::vector<std::pair<double, double>> points);
  // A dot at (x, y) with `label` beside it.
  void AddPoint(double x, double y, std::string label);

  // The whole SVG document. Axes span the data (with a margin for points);
  // an empty chart still has axes, over [0, 1].
  std::string Render() const;

 private:
  struct Line {
    std::string name;
    std::vector<std::pair<double, double>> points;
  };
  struct Point {
    double x, y;
    std::string label;
  };
  std::string title_, x_label_, y_label_;
  std::vector<Line> lines_;
  std::vector<Point> points_;
};

// Round tick values from the last at or below lo to the first at or above
// hi: steps of 1, 2 or 5 times a power of ten, about `target` of them.
// Exposed for tests.
std::vector<double> NiceTicks(double lo, double hi, int target);

}  // namespace streamglove

#endif  // STREAMGLOVE_PLOT_SVG_CHART_H_
