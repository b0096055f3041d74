// Nearest neighbours of a query vector built from words.

#include <algorithm>
#include <cmath>
#include <limits>

#include "eval/candidate_scorer.h"
#include "streamglove/eval.h"

namespace streamglove {

std::vector<Neighbor> NearestNeighbors(const Embeddings& embeddings, const WordMatcher& matcher,
                                       const std::vector<QueryTerm>& plus,
                                       const std::vector<QueryTerm>& minus, uint32_t k) {
  const uint32_t dim = embeddings.dim(), n = matcher.candidates();
  std::vector<double> query(dim, 0.0);
  for (const auto* terms : {&plus, &minus}) {
    const double sign = terms == &plus ? 1 : -1;
    for (const QueryTerm& t : *terms) {
      if (t.row != Embeddings::kNotFound) {
        if (embeddings.norm(t.row) == 0) continue;
        for (uint32_t j = 0; j < dim; ++j)
          query[j] += sign * embeddings.value(t.row, j) / embeddings.norm(t.row);
        continue;
      }
      double norm = 0;
      for (float x : t.vector) norm += double{x} * x;
      if (norm == 0) continue;
      for (uint32_t j = 0; j < dim; ++j) query[j] += sign * t.vector[j] / std::sqrt(norm);
    }
  }
  double length = 0;
  for (double v : query) length += v * v;
  length = std::sqrt(length);
  std::vector<float> q(dim);
  for (uint32_t j = 0; j < dim; ++j) q[j] = static_cast<float>(length > 0 ? query[j] / length : 0);
  std::vector<float> scores;
  ScoreCandidates(embeddings, n, q.data(), 1, &scores);
  for (const auto* terms : {&plus, &minus}) {
    for (const QueryTerm& t : *terms) {
      if (t.row == Embeddings::kNotFound) continue;
      for (uint32_t v : matcher.Variants(t.row)) {
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
