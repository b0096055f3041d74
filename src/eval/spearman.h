// Spearman's rank correlation, ties given their average rank (as
// scipy.stats.spearmanr).
#ifndef STREAMGLOVE_EVAL_SPEARMAN_H_
#define STREAMGLOVE_EVAL_SPEARMAN_H_

#include <vector>

namespace streamglove {

// 1-based ranks of `values`; tied values share the mean of their ranks.
std::vector<double> AverageRanks(const std::vector<double>& values);

// Pearson's correlation of the ranks of x and y. REQUIRES: x.size() ==
// y.size(). NaN with fewer than two pairs or when a side is constant.
double Spearman(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace streamglove

#endif  // STREAMGLOVE_EVAL_SPEARMAN_H_
