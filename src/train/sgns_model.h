// SgnsModel: word2vec's skip-gram with negative sampling, trained from the
// co-occurrence store instead of a pass over the text (docs/sgns.md).
//
// Each stored pair (i, j) with count X_ij stands for X_ij observations of
// context j around word i. Subsampling frequent words as word2vec does (keep
// a word with probability p(w) = min(1, (sqrt(f_w / t) + 1) t / f_w), f_w its
// share of the tokens) keeps each such observation with probability
// p(i) p(j), so a pair is worth X_ij p(i) p(j) positive updates, which the
// block reader realises by stochastic rounding and spreads over the stream
// (PairTransform::unit_updates). Each positive update is word2vec's:
// one logistic step towards sigma(w_i . c_j) = 1 and `negatives` steps
// towards sigma(w_i . c_n) = 0 for noise words n drawn from unigram^power,
// with a learning rate falling linearly from eta to eta / 10^4 over the
// whole run.
//
// Layout: two V x RowStride(dim) float arrays (word, context). Initialised as
// word2vec: word components uniform in [-0.5, 0.5) / dim, contexts zero.
// With subwords, the word side of an update is the word's input vector
// (train/subword_rows.h): its step goes to the word's row and each of its
// n-grams' rows, which start at zero.
//
// Thread-safety: see EmbeddingModel (Hogwild, as word2vec).
#ifndef STREAMGLOVE_TRAIN_SGNS_MODEL_H_
#define STREAMGLOVE_TRAIN_SGNS_MODEL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "streamglove/vocab_file.h"
#include "train/embedding_model.h"
#include "train/tile_schedule.h"
#include "util/alias_table.h"
#include "util/large_array.h"

namespace streamglove {

// The most noise words per positive update (--negatives).
inline constexpr uint32_t kMaxNegatives = 100;

struct SgnsHyper {
  float eta;           // initial learning rate
  uint32_t negatives;  // noise words per positive update, 1 to kMaxNegatives
};

// The noise distribution's weights: count^power for the ids below `cut`
// (for an AliasTable).
std::vector<double> NoiseWeights(const std::vector<VocabEntry>& vocab, uint32_t cut, double power);

// word2vec's subsampling keep probabilities p(w) for the ids below `cut`;
// t = 0 keeps everything. `tokens` is the corpus size the counts come from.
std::vector<float> SubsampleKeepProbabilities(const std::vector<VocabEntry>& vocab, uint32_t cut,
                                              uint64_t tokens, double t);

// A stored count as an SGNS training pair: weight = x p(row) p(col)
// positive updates, spread by the reader as unit updates.
PairTransform SgnsTransform(std::vector<float> keep);

// Skip-gram's noise: over every word, and within each column part for tiles
// (nullptr without tiles). Neither is owned.
struct NoiseTables {
  const AliasTable* all = nullptr;
  const PartNoise* parts = nullptr;
};

class SgnsModel final : public EmbeddingModel {
 public:
  // The AliasTable `noise` (of NoiseWeights) and `subwords` (nullptr:
  // words are atoms) must outlive the model.
  SgnsModel(uint32_t vocab, uint32_t dim, uint64_t seed, const SgnsHyper& hyper,
            const AliasTable* noise, const SubwordIndex* subwords = nullptr);

  // The word rows' bytes (a subword model adds SubwordRows::MemoryBytes).
  static size_t MemoryBytes(uint32_t vocab, uint32_t dim) {
    return 2 * size_t{vocab} * RowStride(dim) * sizeof(float);
  }

  // One positive update per pair (its weight is not read: the reader has
  // expanded the counts), each with its negatives. The loss is
  // -log sigma(w.c) - sum log sigma(-w.c_n) per positive update.
  void TrainRange(const TrainingPair* pairs, size_t n, const RangeContext& context,
                  RangeTotals* totals) override;

  std::vector<LargeArray<float>*> WordArrays() override { return {&word_, &context_}; }

  // Tiles: the noise of each column part (train/tile_schedule.h), which a
  // range with a noise_part draws from; it must outlive the model.
  void set_part_noise(const PartNoise* part_noise) { part_noise_ = part_noise; }

 private:
  // A noise word for a range of `context`, from 64 random bits.
  uint32_t NoiseWord(const RangeContext& context, uint64_t bits) const {
    return context.noise_part == kAllParts ? static_cast<uint32_t>(noise_->Sample(bits))
                                           : part_noise_->Sample(context.noise_part, bits);
  }

  // One positive update of (row, col) and its noise words `noise`
  // (hyper_.negatives of them, drawn beforehand) at learning rate lr;
  // returns its loss.
  double Update(uint32_t row, uint32_t col, const uint32_t* noise, float lr);

  // The logistic steps of one positive update on the context rows, for the
  // word-side vector w; the word side's step is left in step_w (dim floats).
  double StepContexts(const float* w, uint32_t col, const uint32_t* noise, float lr, float* step_w);

  // A subword model's TrainRange: the range's pairs of one word train one
  // after another (the words in the order of their first pair), so that
  // the word's input vector is gathered from its rows once per run and the
  // run's steps, summed, are added to the rows once. Pair by pair, each
  // step moves every row of the word, and so their mean, by the step: the
  // same arithmetic, fewer passes over the n-gram rows.
  void TrainRangeByWord(const TrainingPair* pairs, size_t n, const RangeContext& context,
                        RangeTotals* totals);
  // The positions 0 .. n-1 of `pairs` grouped by word (a stable sort by the
  // position of each word's first pair).
  static std::vector<uint32_t> WordRunOrder(const TrainingPair* pairs, size_t n);

  // Asks the caches for row i of the array at `base`, and for the rows an
  // Update of (row, col, noise) will touch.
  void PrefetchRow(const float* base, uint32_t i) const;
  void Prefetch(uint32_t row, uint32_t col, const uint32_t* noise) const;

  SgnsHyper hyper_;
  const AliasTable* noise_;
  const PartNoise* part_noise_ = nullptr;
};

}  // namespace streamglove

#endif  // STREAMGLOVE_TRAIN_SGNS_MODEL_H_
