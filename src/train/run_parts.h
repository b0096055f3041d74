// What both a budget's measurement (budget_run.h) and the epochs
// (epoch_loop.h) make of a run's options: the objective's model, and an
// epoch's reader of the block stream.
//
// Thread-safety: the functions share nothing; what they make is the
// caller's (see EmbeddingModel and BlockReader).
#ifndef STREAMGLOVE_TRAIN_RUN_PARTS_H_
#define STREAMGLOVE_TRAIN_RUN_PARTS_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include <tbb/task_arena.h>

#include "streamglove/status.h"
#include "streamglove/train.h"
#include "train/block_reader.h"
#include "train/block_stream.h"
#include "train/embedding_model.h"
#include "train/glove_model.h"
#include "train/sgns_model.h"
#include "util/alias_table.h"

namespace streamglove {

// The objectives' hyperparameters in `o`.
GloveHyper GloveHyperOf(const TrainOptions& o);
SgnsHyper SgnsHyperOf(const TrainOptions& o);

// Bytes of the parameters of `vocab` words of `dim` for o's objective, with
// o.subwords' n-gram rows (their buckets resolved) when enabled.
size_t ParameterBytes(const TrainOptions& o, uint32_t vocab, uint32_t dim);

// The objective's model of `dim`, fresh from options.seed, in *model. SGNS
// draws its noise words from `noise` (a tile's from noise.parts); a subword
// model's words have the n-grams of `subwords` (nullptr: words are atoms);
// both must outlive it.
// Parameters the machine (or ulimit -v) refuses are an error naming their
// size.
Status MakeModel(const TrainOptions& o, uint32_t vocab, uint32_t dim, const NoiseTables& noise,
                 const SubwordIndex* subwords, std::unique_ptr<EmbeddingModel>* model);

// Epoch e's reader: random blocks in their own order, each scattered by its
// own seed, deterministic per (seed, epoch, block); or a tiled stream's
// rounds (TileReader), deterministic per (seed, epoch, tile); so a resumed
// run reads as an uninterrupted one would. `blocks` and `transform` must
// outlive it.
std::unique_ptr<PartReader> OpenEpoch(const BlockStreamInfo* blocks, uint64_t seed, uint32_t e,
                                      const PairTransform* transform,
                                      tbb::task_arena* scatter_arena = nullptr);

}  // namespace streamglove

#endif  // STREAMGLOVE_TRAIN_RUN_PARTS_H_
