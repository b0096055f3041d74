#include <cmath>
#include <random>

#include <catch2/catch.hpp>

#include "plot/pca.h"
#include "plot/svg_chart.h"

using namespace streamglove;

TEST_CASE("Ticks are round, evenly spaced and enclose the range", "[plot]") {
  const std::vector<double> unit = NiceTicks(0, 1, 5);
  REQUIRE(unit.size() == 6);
  for (size_t i = 0; i < unit.size(); ++i)
    CHECK(unit[i] == Approx(0.2 * static_cast<double>(i)).margin(1e-12));
  const std::vector<double> t = NiceTicks(2.2425, 2.5454, 6);
  REQUIRE(t.size() >= 4);
  CHECK(t.front() <= 2.2425);
  CHECK(t.back() >= 2.5454);
  CHECK(t[1] - t[0] == Approx(0.1));  // 0.05 would give 7 ticks for a target of 6
  CHECK(t.front() == Approx(2.2));
  CHECK(t.back() == Approx(2.6));
  CHECK(NiceTicks(1, 36, 8).front() == 0);
  CHECK(NiceTicks(1, 36, 8).back() == 40);
  CHECK(NiceTicks(5, 5, 4).size() >= 2);  // an empty range still has an axis
}

TEST_CASE("The first two principal components of points spread along known axes", "[plot]") {
  // Points along three orthonormal directions of R^10 with spreads 3, 1 and
  // 0.1: PCA must find the first two, with variances 9 and 1.
  constexpr size_t kDim = 10, kRows = 4000;
  std::mt19937_64 rng(3);
  std::normal_distribution<double> normal;
  std::vector<std::vector<double>> axis(3, std::vector<double>(kDim));
  for (auto& a : axis) {
    for (double& x : a) x = normal(rng);
  }
  for (size_t i = 0; i < 3; ++i) {  // Gram-Schmidt
    for (size_t j = 0; j < i; ++j) {
      double d = 0;
      for (size_t k = 0; k < kDim; ++k) d += axis[i][k] * axis[j][k];
      for (size_t k = 0; k < kDim; ++k) axis[i][k] -= d * axis[j][k];
    }
    double n = 0;
    for (double x : axis[i]) n += x * x;
    for (double& x : axis[i]) x /= std::sqrt(n);
  }
  std::vector<double> rows, a0, a1;
  for (size_t r = 0; r < kRows; ++r) {
    const double c[3] = {3 * normal(rng), normal(rng), 0.1 * normal(rng)};
    a0.push_back(c[0]), a1.push_back(c[1]);
    for (size_t k = 0; k < kDim; ++k)
      rows.push_back(5 + c[0] * axis[0][k] + c[1] * axis[1][k] + c[2] * axis[2][k]);
  }
  const Projection2D p = ProjectOnTopComponents(rows, kDim);
  REQUIRE(p.points.size() == kRows);
  CHECK(p.variance[0] == Approx(9).epsilon(0.08));
  CHECK(p.variance[1] == Approx(1).epsilon(0.08));
  CHECK(p.total_variance == Approx(10.01).epsilon(0.08));
  // Each projection is the planted coordinate, up to sign and the centring.
  const auto correlation = [&](const std::vector<double>& truth, int a) {
    double sxy = 0, sxx = 0, syy = 0, mx = 0, my = 0;
    for (size_t r = 0; r < kRows; ++r) mx += truth[r] / kRows, my += p.points[r][a] / kRows;
    for (size_t r = 0; r < kRows; ++r) {
      const double x = truth[r] - mx, y = p.points[r][a] - my;
      sxy += x * y, sxx += x * x, syy += y * y;
    }
    return sxy / std::sqrt(sxx * syy);
  };
  CHECK(std::abs(correlation(a0, 0)) > 0.999);
  CHECK(std::abs(correlation(a1, 1)) > 0.99);
}

TEST_CASE("An SVG chart holds its title, axes labels, series and escaped text", "[plot]") {
  SvgChart chart("Loss <&> \"runs\"", "epoch", "loss");
  chart.AddLine("run a", {{1, 2.5}, {2, 2.4}, {3, 2.35}});
  chart.AddLine("run b", {{1, 2.6}, {2, 2.5}});
  chart.AddPoint(0.5, 2.45, "a<b");
  const std::string svg = chart.Render();
  CHECK(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
  CHECK(svg.ends_with("</svg>\n"));
  CHECK(svg.find("Loss &lt;&amp;&gt; &quot;runs&quot;") != std::string::npos);
  CHECK(svg.find(">epoch</text>") != std::string::npos);
  CHECK(svg.find(">run b</text>") != std::string::npos);  // a legend for two series
  CHECK(svg.find(">a&lt;b</text>") != std::string::npos);
  size_t polylines = 0;
  for (size_t at = svg.find("<polyline"); at != std::string::npos;
       at = svg.find("<polyline", at + 1))
    ++polylines;
  CHECK(polylines == 2);
}
