#include "plot/pca.h"

#include <algorithm>
#include <cmath>

namespace streamglove {

namespace {

constexpr int kMaxIterations = 1000;
constexpr double kTolerance = 1e-12;

// The leading eigenvector of symmetric `c` (d x d) and its eigenvalue.
double LeadingEigenvector(const std::vector<double>& c, size_t d, std::vector<double>* v) {
  v->assign(d, 0);
  for (size_t k = 0; k < d; ++k)
    (*v)[k] = 1.0 + 0.01 * static_cast<double>(k);  // fixed, not orthogonal to much
  std::vector<double> next(d);
  double lambda = 0;
  for (int it = 0; it < kMaxIterations; ++it) {
    for (size_t i = 0; i < d; ++i) {
      double s = 0;
      for (size_t j = 0; j < d; ++j) s += c[i * d + j] * (*v)[j];
      next[i] = s;
    }
    double norm = 0;
    for (double x : next) norm += x * x;
    norm = std::sqrt(norm);
    if (norm == 0) return 0;  // nothing left: the rows span fewer dimensions
    double change = 0;
    for (size_t i = 0; i < d; ++i) {
      next[i] /= norm;
      change += std::abs(next[i] - (*v)[i]);
    }
    v->swap(next);
    lambda = norm;
    if (change < kTolerance) break;
  }
  return lambda;
}

}  // namespace

Projection2D ProjectOnTopComponents(const std::vector<double>& rows, size_t dim) {
  const size_t n = rows.size() / dim;
  std::vector<double> mean(dim, 0);
  for (size_t r = 0; r < n; ++r) {
    for (size_t k = 0; k < dim; ++k) mean[k] += rows[r * dim + k];
  }
  for (double& m : mean) m /= static_cast<double>(n);
  std::vector<double> cov(dim * dim, 0), centred(dim);
  Projection2D out;
  for (size_t r = 0; r < n; ++r) {
    for (size_t k = 0; k < dim; ++k) centred[k] = rows[r * dim + k] - mean[k];
    for (size_t i = 0; i < dim; ++i) {
      for (size_t j = 0; j < dim; ++j) cov[i * dim + j] += centred[i] * centred[j];
    }
  }
  for (double& x : cov) x /= static_cast<double>(n);
  for (size_t k = 0; k < dim; ++k) out.total_variance += cov[k * dim + k];
  std::array<std::vector<double>, 2> axis;
  for (int a = 0; a < 2; ++a) {
    out.variance[a] = LeadingEigenvector(cov, dim, &axis[a]);
    // Deflate: what is left has the first axis removed.
    for (size_t i = 0; i < dim; ++i) {
      for (size_t j = 0; j < dim; ++j)
        cov[i * dim + j] -= out.variance[a] * axis[a][i] * axis[a][j];
    }
    const auto largest = std::max_element(axis[a].begin(), axis[a].end(), [](double x, double y) {
      return std::abs(x) < std::abs(y);
    });
    if (*largest < 0) {
      for (double& x : axis[a]) x = -x;
    }
  }
  out.points.resize(n);
  for (size_t r = 0; r < n; ++r) {
    for (int a = 0; a < 2; ++a) {
      double s = 0;
      for (size_t k = 0; k < dim; ++k) s += (rows[r * dim + k] - mean[k]) * axis[a][k];
      out.points[r][a] = s;
    }
  }
  return out;
}

}  // namespace streamglove
