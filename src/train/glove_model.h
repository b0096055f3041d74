// GloveModel: word and context vectors with biases, their AdaGrad state, and
// the GloVe update.
//
// Layout: four V x RowStride(dim) float arrays (word, context, and their
// squared gradient sums); row i holds dim components then the bias. Floats,
// not glove.c's doubles: half the memory traffic, and 8 lanes per AVX
// register.
//
// Thread-safety: see EmbeddingModel. Two threads updating one row may lose an
// update; with millions of rows and shuffled pairs such collisions are rare
// and, as Recht et al. show for sparse SGD, do not change convergence; they
// only make multi-threaded runs not bit-reproducible (single-threaded runs
// are).
#ifndef STREAMGLOVE_TRAIN_GLOVE_MODEL_H_
#define STREAMGLOVE_TRAIN_GLOVE_MODEL_H_

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "streamglove/status.h"
#include "streamglove/train.h"
#include "train/block_stream.h"
#include "train/embedding_model.h"
#include "train/pair_update.h"
#include "util/large_array.h"

namespace streamglove {

// The hyperparameters an update needs (x_max and alpha are folded into each
// TrainingPair's weight by GloveTransform), and the step schedule
// (TrainOptions::step_scale, decay_fraction).
struct GloveHyper {
  float eta, grad_clip;
  double step_scale = 1, decay_fraction = 0;

  // The steps' factor at `progress` (0 at the run's start, 1 at its end).
  float StepScale(double progress) const {
    return GloveStepScale(step_scale, decay_fraction, progress);
  }
};

// A stored count x as a GloVe training pair: log x and f(x) = min(1, (x / x_max)^alpha).
PairTransform GloveTransform(double x_max, double alpha);

class GloveModel final : public EmbeddingModel {
 public:
  // Initialises as glove.c: components uniform in [-0.5, 0.5) / dim, squared
  // gradients 1 (so the first step is eta). With `subwords` (which must
  // outlive the model; nullptr: words are atoms) the word side of a pair is
  // the word's input vector (train/subword_rows.h), whose n-gram rows start
  // at zero; biases stay the words'.
  GloveModel(uint32_t vocab, uint32_t dim, uint64_t seed, const GloveHyper& hyper,
             const SubwordIndex* subwords = nullptr);

  // The word rows' bytes (a subword model adds SubwordRows::MemoryBytes).
  static size_t MemoryBytes(uint32_t vocab, uint32_t dim) {
    return 4 * size_t{vocab} * RowStride(dim) * sizeof(float);
  }

  // One AdaGrad step on a pair, glove.c's (clipping, NaN/Inf skip, bias
  // steps without eta) with the vector components' steps times `scale` (the
  // squared-gradient sums and the bias steps are glove.c's). Adds the pair's weighted cost to
  // *cost; returns false, changing nothing, when diff or f·diff is not finite.
  bool Update(const TrainingPair& pair, float scale, double* cost);

  // Update() on each pair at the schedule's scale for where it sits in the
  // run, the rows of pairs a few ahead being prefetched.
  void TrainRange(const TrainingPair* pairs, size_t n, const RangeContext& context,
                  RangeTotals* totals) override;

  // Word, context and both squared-gradient arrays.
  std::vector<LargeArray<float>*> WordArrays() override {
    return {&word_, &context_, &word_gradsq_, &context_gradsq_};
  }

 private:
  // Update() of a subword model: the word side is the word's input vector.
  bool UpdateSubword(const TrainingPair& pair, float scale, double* cost);

  // Asks the caches for the rows a later Update(pair) will touch.
  void Prefetch(const TrainingPair& pair) const;

  GloveHyper hyper_;
  LargeArray<float> word_gradsq_, context_gradsq_;
};

}  // namespace streamglove

#endif  // STREAMGLOVE_TRAIN_GLOVE_MODEL_H_
