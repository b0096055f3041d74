// CandidateScorer: scores batches of query vectors against the candidate
// rows' unit vectors with one float32 GEMM (OpenBLAS) per batch, and picks
// the best candidates exactly: rows within float rounding of the float best
// are re-scored in double by a caller-supplied function.
//
// Thread-safety: one object per thread; the Embeddings are only read.
#ifndef STREAMGLOVE_EVAL_CANDIDATE_SCORER_H_
#define STREAMGLOVE_EVAL_CANDIDATE_SCORER_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "streamglove/embeddings.h"

namespace streamglove {

// scores[q * candidates + x] = queries[q] . unit(x) for the first
// `candidates` rows; queries are `count` rows of embeddings.dim() floats.
void ScoreCandidates(const Embeddings& embeddings, uint32_t candidates, const float* queries,
                     size_t count, std::vector<float>* scores);

// The queries a batch may hold so that its score matrix stays near
// `budget_bytes` (at least 16, at most 1024).
size_t QueriesPerBatch(uint32_t candidates, size_t budget_bytes);

// The index of the best score in row[0, n) among those not excluded, with
// rows whose float score is within `tolerance` of the float best re-scored by
// `exact` (the larger exact score wins; the lower index on a tie). `row` is
// modified: excluded entries are overwritten. Returns UINT32_MAX when every
// entry is excluded.
uint32_t BestCandidate(float* row, uint32_t n, const std::vector<uint32_t>& excluded,
                       float tolerance, const std::function<double(uint32_t)>& exact);

}  // namespace streamglove

#endif  // STREAMGLOVE_EVAL_CANDIDATE_SCORER_H_
