// Warm start: a run on a store that has grown since an earlier run starts
// from that run's parameters instead of from random ones (train
// --warm-start).
#ifndef STREAMGLOVE_TRAIN_WARM_START_H_
#define STREAMGLOVE_TRAIN_WARM_START_H_

#include <cstdint>
#include <string>
#include <vector>

#include "streamglove/status.h"
#include "streamglove/vocab_file.h"
#include "train/embedding_model.h"

namespace streamglove {

// Starts `model`, whose rows are the words of `vocab` (by rank), from an
// earlier run: `vectors` is that run's output, whose words name its rows,
// and vectors + ".checkpoint" holds them. A word of both runs takes the
// earlier run's row in every array (vectors, bias and optimiser state, so
// its steps continue at the rate AdaGrad had reached); a new word keeps its
// fresh initialisation. The earlier run must have the same objective and
// dim, and the checkpoint must be of the vectors file's words, in its order
// (a checkpoint states its words' hash). *kept: the words that took an
// earlier row.
Status WarmStart(const std::string& vectors, const std::vector<VocabEntry>& vocab,
                 EmbeddingModel* model, uint32_t* kept);

}  // namespace streamglove

#endif  // STREAMGLOVE_TRAIN_WARM_START_H_
