#include "streamglove/embed.h"

namespace streamglove {

EmbedSettings EmbedSettingsFor(Objective objective) {
  EmbedSettings s;  // min-count: the options' default, 5
  s.train.objective = objective;
  if (objective == Objective::kSgns) {
    s.ingest.window = 5;
    s.ingest.subsample = 1e-4;
    s.train.dim = 100;
    s.train.epochs = 5;
  } else {
    const TrainPreset* demo = FindTrainPreset("glove-demo");
    s.ingest.window = 15;
    s.train.dim = demo->dim;
    s.train.epochs = demo->epochs;
    s.train.x_max = demo->x_max;
  }
  return s;
}

}  // namespace streamglove
