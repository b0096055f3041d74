// TileReader: an epoch of a tiled block stream (train/tile_schedule.h), one
// part ahead of the trainers. A part is a round, or with unit updates a
// slice of one; its buckets are the round's tiles, in the order of their row
// parts, so the threads taking them train disjoint rows.
//
// Stored records (GloVe): each tile is read whole into its bucket,
// unconverted; PrepareBucket converts and shuffles it on the thread that
// trains it. Unit updates (skip-gram): the round's records are converted
// and each drawn its copies (stochastic rounding, as BlockReader), all from
// generators seeded by (seed, epoch, tile); when a round's copies exceed
// `part_updates`, the round is cut into S slices, copy m of a record going
// to slice (o + m) mod S from an offset o drawn for the record, so each
// slice holds an even share of every heavy pair; a slice's tiles are each
// shuffled here. Memory: a round's records as TrainingPairs and their copy
// counts, and two parts.
//
// Thread-safety: the read-ahead runs on its own thread; the calls are made
// from one thread.
#ifndef STREAMGLOVE_TRAIN_TILE_READER_H_
#define STREAMGLOVE_TRAIN_TILE_READER_H_

#include <cstddef>
#include <cstdint>
#include <thread>
#include <vector>

#include "streamglove/status.h"
#include "train/block_reader.h"
#include "train/block_stream.h"

namespace streamglove {

class TileReader final : public PartReader {
 public:
  // `info` (info->tile_parts > 0) and `transform` must outlive the reader.
  TileReader(const BlockStreamInfo* info, uint64_t seed, uint32_t epoch,
             const PairTransform* transform, size_t part_updates);
  ~TileReader() override;
  Status Next(BlockPart* part, bool* done) override;
  bool exhausted() const override { return exhausted_; }

 private:
  // Prefetches the next part; what it throws becomes ahead_status_.
  void Prefetch();
  void PrefetchPart();
  // Reads round round_'s tiles: into ahead_ as stored records, or with unit
  // updates into round_pairs_, converted, and their copies drawn.
  Status ReadRound();
  // Slice slice_ of the round read: its copies, each tile shuffled.
  void FillSlice();

  const BlockStreamInfo* const info_;
  const uint64_t seed_;
  const uint32_t epoch_;
  const uint32_t parts_;
  const PairTransform* const transform_;
  const size_t part_updates_;
  uint32_t round_ = 0;   // the next round to read
  uint64_t slices_ = 1;  // of the round read
  uint64_t slice_ = 0;   // the next slice of it
  bool exhausted_ = false;
  std::thread prefetch_;
  BlockPart ahead_;
  Status ahead_status_;
  std::vector<PairRecord32> records_;  // a tile being read
  // Unit updates: the round's pairs (converted), their copies, its tiles'
  // ranges in them and the tiles' ids.
  std::vector<TrainingPair> round_pairs_;
  std::vector<uint32_t> copies_;
  std::vector<size_t> tile_begin_;
  std::vector<uint32_t> tiles_;
};

}  // namespace streamglove

#endif  // STREAMGLOVE_TRAIN_TILE_READER_H_
