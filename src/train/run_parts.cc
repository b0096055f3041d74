#include "train/run_parts.h"

#include <algorithm>
#include <new>
#include <random>
#include <vector>

#include <fmt/format.h>

#include "streamglove/units.h"
#include "train/bucket_trainer.h"
#include "train/glove_model.h"
#include "train/sgns_model.h"
#include "train/subword_rows.h"
#include "train/tile_reader.h"
#include "train/train_tuning.h"

namespace streamglove {

GloveHyper GloveHyperOf(const TrainOptions& o) {
  return GloveHyper{static_cast<float>(o.eta), static_cast<float>(o.grad_clip), o.step_scale,
                    o.decay_fraction};
}
SgnsHyper SgnsHyperOf(const TrainOptions& o) {
  return SgnsHyper{static_cast<float>(o.eta), o.negatives};
}

size_t ParameterBytes(const TrainOptions& o, uint32_t vocab, uint32_t dim) {
  const bool glove = o.objective != Objective::kSgns;
  const size_t words =
      glove ? GloveModel::MemoryBytes(vocab, dim) : SgnsModel::MemoryBytes(vocab, dim);
  if (!o.subwords.enabled) return words;
  return words + SubwordRows::MemoryBytes(o.subwords.buckets, dim, /*adagrad=*/glove);
}

Status MakeModel(const TrainOptions& o, uint32_t vocab, uint32_t dim, const NoiseTables& noise,
                 const SubwordIndex* subwords, std::unique_ptr<EmbeddingModel>* model) {
  try {
    if (o.objective == Objective::kSgns) {
      auto sgns =
          std::make_unique<SgnsModel>(vocab, dim, o.seed, SgnsHyperOf(o), noise.all, subwords);
      sgns->set_part_noise(noise.parts);
      *model = std::move(sgns);
    } else {
      *model = std::make_unique<GloveModel>(vocab, dim, o.seed, GloveHyperOf(o), subwords);
    }
  } catch (const std::bad_alloc&) {
    return Status::IOError(
        fmt::format("out of memory: the parameters of {} words x {} dims ({}) did not fit in what "
                    "the machine (or ulimit -v) "
                    "gave; lower --max-vocab or --dim",
                    vocab, dim, FormatBytes(ParameterBytes(o, vocab, dim))));
  }
  return Status::OK();
}

std::unique_ptr<PartReader> OpenEpoch(const BlockStreamInfo* blocks, uint64_t seed, uint32_t e,
                                      const PairTransform* transform,
                                      tbb::task_arena* scatter_arena) {
  if (blocks->tile_parts > 0) {
    // A slice of unit updates holds an eighth of a round's records in
    // copies: the round's records, their copy counts and offsets and two
    // slices are then at most what a block of records and two half-block
    // parts are (28 bytes a record), which the memory plan holds.
    const uint64_t round = blocks->pairs / blocks->tile_parts;
    return std::make_unique<TileReader>(blocks, seed, e, transform,
                                        static_cast<size_t>(std::max<uint64_t>(1, round / 8)));
  }
  std::vector<uint32_t> order(blocks->block_records.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::mt19937_64 order_rng(MixSeed(seed, e, ~uint64_t{0}));
  std::shuffle(order.begin(), order.end(), order_rng);
  std::vector<uint64_t> shuffle_seeds;
  for (uint32_t b : order) shuffle_seeds.push_back(MixSeed(seed, e, b));
  return std::make_unique<BlockReader>(blocks, std::move(order), std::move(shuffle_seeds),
                                       transform, kBucketRecords, scatter_arena);
}

}  // namespace streamglove
