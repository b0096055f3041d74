// Nearest neighbours of a query vector built from words.

#include <algorithm>
#include <cmath>
#include <limits>

#include "eval/candidate_scorer.h"
#include "streamglove/eval.h"

namespace streamglove {

std::vector<Neighbor> NearestNeighbors(const Embeddings& embeddings, const WordMatcher& matcher,
                                       const std::vector<uint32_t>& plus,
                                       const std::vector<uint32_t>& minus, uint32_t k) {
  const uint32_t dim = embeddings.dim(), n = matcher.candidates();
  std::vector<double> query(dim, 0.0);
  for (const auto* rows : {&plus, &minus}) {
    const double sign = rows == &plus ? 1 : -1;
    for (uint32_t r : *rows) {
      if (embeddings.norm(r) == 0) continue;
      for (uint32_t j = 0; j < dim; ++j)
        query[j] += sign * embeddings.value(r, j) / embeddings.norm(r);
    }
  }
  double length = 0;
  for (double v : query) length += v * v;
  length = std::sqrt(length);
  std::vector<float> q(dim);
  for (uint32_t j = 0; j < dim; ++j) q[j] = static_cast<float>(length > 0 ? query[j] / length : 0);
  std::vector<float> scores;
  ScoreCandidates(embeddings, n, q.data(), 1, &scores);
  for (const auto* rows : {&plus, &minus}) {
    for (uint32_t r : *rows) {
      for (uint32_t v : matcher.Variants(r)) {
        if (v < n) scores[v] = -std::numeric_limits<float>::infinity();
      }
    }
  }
  std::vector<uint32_t> order(n);
  for (uint32_t i = 0; i < n; ++i) order[i] = i;
  k = std::min<uint32_t>(k, n);
  std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](uint32_t a, uint32_t b) {
    return scores[a] > scores[b] || (scores[a] == scores[b] && a < b);
  });
  std::vector<Neighbor> out;
  for (uint32_t i = 0; i < k && scores[order[i]] != -std::numeric_limits<float>::infinity(); ++i) {
    const uint32_t x = order[i];
    double dot = 0;  // reported in double
    for (uint32_t j = 0; j < dim; ++j)
      dot += embeddings.value(x, j) * (length > 0 ? query[j] / length : 0);
    out.push_back({x, embeddings.norm(x) > 0 ? dot / embeddings.norm(x) : 0});
  }
  return out;
}

}  // namespace streamglove
