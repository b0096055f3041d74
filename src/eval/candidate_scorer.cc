#include "eval/candidate_scorer.h"

#include <cblas.h>

#include <algorithm>
#include <limits>

namespace streamglove {

void ScoreCandidates(const Embeddings& embeddings, uint32_t candidates, const float* queries,
                     size_t count, std::vector<float>* scores) {
  scores->resize(count * candidates);
  if (count == 0 || candidates == 0) return;
  const int d = static_cast<int>(embeddings.dim());
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(count),
              static_cast<int>(candidates), d, 1.0f, queries, d, embeddings.unit_data(), d, 0.0f,
              scores->data(), static_cast<int>(candidates));
}

size_t QueriesPerBatch(uint32_t candidates, size_t budget_bytes) {
  return std::clamp<size_t>(budget_bytes / (sizeof(float) * std::max<uint32_t>(candidates, 1)), 16,
                            1024);
}

uint32_t BestCandidate(float* row, uint32_t n, const std::vector<uint32_t>& excluded,
                       float tolerance, const std::function<double(uint32_t)>& exact) {
  constexpr float kExcluded = -std::numeric_limits<float>::infinity();
  for (uint32_t x : excluded) {
    if (x < n) row[x] = kExcluded;
  }
  // The float maximum, in 8 independent lanes so the loop vectorises.
  constexpr uint32_t kLanes = 8;
  float lanes[kLanes];
  std::fill(lanes, lanes + kLanes, kExcluded);
  uint32_t x = 0;
  for (; x + kLanes <= n; x += kLanes) {
    for (uint32_t j = 0; j < kLanes; ++j) lanes[j] = row[x + j] > lanes[j] ? row[x + j] : lanes[j];
  }
  float top = *std::max_element(lanes, lanes + kLanes);
  for (; x < n; ++x) top = std::max(top, row[x]);
  if (top == kExcluded) return UINT32_MAX;
  // Every row whose float score could hide the largest exact one; usually
  // just the float best.
  const float floor = top - tolerance;
  uint32_t best = UINT32_MAX;
  double best_exact = 0;
  uint32_t rivals = 0;
  for (x = 0; x < n; ++x) {
    if (row[x] < floor || row[x] == kExcluded) continue;
    if (rivals++ == 0) {
      best = x;
      continue;
    }
    if (rivals == 2) best_exact = exact(best);
    const double e = exact(x);
    if (e > best_exact) {  // ascending x: the lower row keeps an exact tie
      best_exact = e;
      best = x;
    }
  }
  return best;
}

}  // namespace streamglove
