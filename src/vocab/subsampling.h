// word2vec's subsampling of frequent words, shared by the SGNS trainer (which
// applies it to stored pairs) and the ingest (which can apply it before
// windowing, cooccur/subsampled_window.h).
#ifndef STREAMGLOVE_VOCAB_SUBSAMPLING_H_
#define STREAMGLOVE_VOCAB_SUBSAMPLING_H_

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace streamglove {

// The probability of keeping one occurrence of a word seen `count` times
// among `tokens`: word2vec.c's min(1, (sqrt(f / t) + 1) t / f), f = count /
// tokens. 1 when t is 0 (no subsampling).
inline double SubsampleKeepProbability(uint64_t count, uint64_t tokens, double t) {
  if (t <= 0 || count == 0 || tokens == 0) return 1;
  const double f = static_cast<double>(count) / static_cast<double>(tokens);
  return std::min(1.0, (std::sqrt(f / t) + 1) * t / f);
}

}  // namespace streamglove

#endif  // STREAMGLOVE_VOCAB_SUBSAMPLING_H_
