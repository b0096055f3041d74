// TileReader: an epoch of a tiled block stream (train/tile_schedule.h), one
// part ahead of the trainers. A part is a round, or with unit updates a
// slice of one; its buckets are the round's tiles, in the order of their row
// parts, so the threads taking them train disjoint rows.
//
// Stored records (GloVe): an epoch is one sweep over the rounds, in the
// order of SweepRounds; each tile is read whole into its bucket,
// unconverted; PrepareBucket converts and shuffles it on the thread that
// trains it. Unit updates (skip-gram): an epoch is kUnitSweeps sweeps, each
// reading every round again. The round's records are converted and each
// drawn its copies (stochastic rounding, as BlockReader), all from
// generators seeded by (seed, epoch, tile), so every sweep draws the same;
// the round is cut into kUnitSweeps x S slices (S > 1 when a sweep's share
// of the copies exceeds `part_updates`), copy m of a record going to slice
// (o + m) mod (kUnitSweeps x S) from an offset o drawn for the record, so
// each slice holds an even share of every heavy pair, and sweep k trains
// slices kS to kS + S - 1; a slice's tiles are each shuffled here. Memory:
// a round's records as TrainingPairs and their copy counts (a sweep's share
// of them after its first sweep) and offsets, and two parts.
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
  // Reads round `round`'s tiles for sweep sweep_: into ahead_ as stored
  // records, or with unit updates into round_pairs_, converted, and their
  // copies drawn (slice_ to slice_end_ are then the sweep's slices).
  Status ReadRound(uint32_t round);
  // The records of the round read's tiles.
  uint64_t RoundRecords() const;
  // ReadRound with unit updates: the records with copies in sweep_'s slices.
  Status ReadRoundUnits(uint32_t round);
  // Sets the slices of a round of `copies` copies, and sweep_'s among them.
  void SetSlices(uint64_t copies);
  // Whether the record `index` of the tile of `tile_seed`, of `copies`
  // copies, has copies in sweep_'s slices; its offset in *offset.
  bool InSweep(uint64_t copies, uint64_t tile_seed, size_t index, uint64_t* offset) const;
  // Drops the round's records without copies in sweep_'s slices.
  void KeepSweepRecords();
  // Slice slice_ of the round read: its copies, each tile shuffled.
  void FillSlice();

  static constexpr uint64_t kCopiesUnknown = ~uint64_t{0};

  const BlockStreamInfo* const info_;
  const uint64_t seed_;
  const uint32_t epoch_;
  const uint32_t parts_;
  const PairTransform* const transform_;
  const size_t part_updates_;
  const uint32_t sweeps_;        // kUnitSweeps with unit updates, else 1
  uint32_t sweep_ = 0;           // the sweep of the next round to read
  uint32_t visit_ = 0;           // its index in sweep_'s order
  std::vector<uint32_t> order_;  // sweep_'s order of the rounds
  uint64_t slices_ = 1;          // of the round read, over all sweeps
  uint64_t slice_ = 0;           // the next slice of it
  uint64_t slice_end_ = 0;       // the end of the sweep's slices of it
  bool exhausted_ = false;
  std::thread prefetch_;
  BlockPart ahead_;
  Status ahead_status_;
  std::vector<PairRecord32> records_;  // a tile being read
  // Unit updates: the round's pairs (converted) with copies in the sweep,
  // their copies and offsets, its tiles' ranges in them and the tiles' ids;
  // the round's records, and each round's copies once its first sweep has
  // read it.
  std::vector<TrainingPair> round_pairs_;
  std::vector<uint32_t> copies_, offsets_;
  uint64_t round_records_ = 0;
  double round_updates_per_record_ = 1;
  std::vector<uint64_t> round_copies_;
  std::vector<size_t> tile_begin_;
  std::vector<uint32_t> tiles_;
};

}  // namespace streamglove

#endif  // STREAMGLOVE_TRAIN_TILE_READER_H_
