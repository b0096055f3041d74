// The first two principal components of a set of vectors, for a 2-D map.
//
// The rows are centred; the dim x dim covariance is formed in double and its
// two leading eigenvectors found by power iteration (the second after
// deflating the first), from a fixed start, so a map is reproducible. Each
// axis's sign is fixed so that its largest component is positive.
//
// Thread-safety: a pure function.
#ifndef STREAMGLOVE_PLOT_PCA_H_
#define STREAMGLOVE_PLOT_PCA_H_

#include <array>
#include <cstddef>
#include <vector>

namespace streamglove {

struct Projection2D {
  std::vector<std::array<double, 2>> points;  // one per row, in row order
  std::array<double, 2> variance{};           // along each component
  double total_variance = 0;                  // over all dimensions
};

// `rows`: n rows of `dim` values, row after row. REQUIRES: n >= 1, dim >= 1.
Projection2D ProjectOnTopComponents(const std::vector<double>& rows, size_t dim);

}  // namespace streamglove

#endif  // STREAMGLOVE_PLOT_PCA_H_
