// Corpus to vectors in one step: the settings `streamglove embed` makes its
// store with and trains with, by objective.
#ifndef STREAMGLOVE_EMBED_H_
#define STREAMGLOVE_EMBED_H_

#include "streamglove/ingest.h"
#include "streamglove/train.h"

namespace streamglove {

struct EmbedSettings {
  IngestOptions ingest;
  TrainOptions train;
};

// Skip-gram: word2vec's windows, formed after its subsampling (window 5,
// t = 1e-4: the store of the best skip-gram recipe measured at fastText's
// wall time, docs/sgns.md), and without a budget fastText's dim 100 and 5
// epochs. GloVe: Stanford's demo windows (15, 1/d weighting, a growing
// vocabulary cut at 5) and its dim 50, 15 epochs, x_max 10 (the glove-demo
// preset). Both: min-count 5; everything else the options' defaults.
EmbedSettings EmbedSettingsFor(Objective objective);

}  // namespace streamglove

#endif  // STREAMGLOVE_EMBED_H_
