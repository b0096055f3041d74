// EmbeddingModel: what the trainer needs of an objective's parameters —
// training a range of a block's pairs on one thread, checkpoints, and the
// word and context rows the vectors file is made of.
//
// Implementations: GloveModel (train/glove_model.h), SgnsModel
// (train/sgns_model.h). Rows are `dim` floats (then a bias for GloVe), padded
// to 64 bytes. A subword model's word side is each word's row and its
// n-grams' rows (train/subword_rows.h); the context side is words alone, as
// fastText's output rows.
//
// Thread-safety: TrainRange() runs on many threads at once over disjoint
// ranges, without locks: the tiles of a round (train/tile_schedule.h) share
// no word row (a subword model's n-gram rows excepted), a random block's
// ranges do (Hogwild, as glove.c and word2vec). The other calls are made
// from one thread while no TrainRange() runs.
#ifndef STREAMGLOVE_TRAIN_EMBEDDING_MODEL_H_
#define STREAMGLOVE_TRAIN_EMBEDDING_MODEL_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "streamglove/status.h"
#include "train/block_stream.h"
#include "train/checkpoint.h"
#include "util/large_array.h"
#include "vocab/subword_index.h"

namespace streamglove {

class SubwordRows;

// Where a range sits in the whole run, for objectives whose learning rate
// decays (fractions of all epochs' pairs, 0 at the start, 1 at the end), and
// the seed of the range's own random numbers.
// Tiles (train/tile_schedule.h): skip-gram draws the range's noise words
// from one column part, `noise_part`; kAllParts: from every word.
inline constexpr uint32_t kAllParts = UINT32_MAX;
struct RangeContext {
  double progress_begin = 0, progress_end = 0;
  uint64_t seed = 0;
  uint32_t noise_part = kAllParts;
};

struct RangeTotals {
  double loss = 0;       // summed over the range's updates
  uint64_t updates = 0;  // what the loss is averaged over
  uint64_t skipped = 0;  // updates refused as non-finite

  RangeTotals& operator+=(const RangeTotals& other) {
    loss += other.loss;
    updates += other.updates;
    skipped += other.skipped;
    return *this;
  }
};

// The largest --dim (the updates keep a row's step on the stack).
inline constexpr uint32_t kMaxDim = 4096;

// Floats per parameter row: dim components and one more (GloVe's bias),
// padded to a multiple of 16 floats (64 bytes) so rows are cache-line aligned
// and the update loops vectorise.
inline uint32_t RowStride(uint32_t dim) { return (dim + 1 + 15) / 16 * 16; }

class EmbeddingModel {
 public:
  virtual ~EmbeddingModel();

  virtual void TrainRange(const TrainingPair* pairs, size_t n, const RangeContext& context,
                          RangeTotals* totals) = 0;

  uint32_t vocab() const { return vocab_; }
  // The n-gram rows of a subword model; nullptr when words are atoms.
  const SubwordRows* subwords() const { return subwords_.get(); }
  uint32_t dim() const { return dim_; }
  const float* word(uint32_t i) const { return word_.data() + size_t{i} * stride_; }
  const float* context(uint32_t i) const { return context_.data() + size_t{i} * stride_; }

  // Checkpoint file (train/checkpoint.h) of CheckpointArrays(), written
  // atomically. Load() accepts only a checkpoint of the same vocab, dim and
  // stamp.
  Status Save(const std::string& path, uint32_t epochs_done, const CheckpointStamp& stamp);
  Status Load(const std::string& path, const CheckpointStamp& stamp, uint32_t* epochs_done);

  // The rows of words and any optimiser state, each vocab x RowStride(dim)
  // floats (what a device trainer copies to its device and back).
  virtual std::vector<LargeArray<float>*> WordArrays() = 0;
  // Everything a resumed run needs (what a checkpoint holds): WordArrays(),
  // then a subword model's n-gram arrays.
  std::vector<LargeArray<float>*> CheckpointArrays();

  // Once training is done: a subword model's word rows become the words'
  // input vectors (their rows' mean with their n-grams'), which the vectors
  // file is written from. Nothing to do when words are atoms.
  void FoldSubwords();

 protected:
  // Word and context arrays of vocab x RowStride(dim) floats, zero, and with
  // `subwords` (which must outlive the model) the n-gram rows, with AdaGrad
  // sums when `adagrad`. Throws std::bad_alloc as LargeArray.
  EmbeddingModel(uint32_t vocab, uint32_t dim, const SubwordIndex* subwords, bool adagrad);

  const uint32_t vocab_, dim_, stride_;
  LargeArray<float> word_, context_;
  std::unique_ptr<SubwordRows> subwords_;
};

}  // namespace streamglove

#endif  // STREAMGLOVE_TRAIN_EMBEDDING_MODEL_H_
