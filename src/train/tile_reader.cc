#include "train/tile_reader.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <new>

#include <fmt/format.h>

#include "train/block_file_reader.h"
#include "train/bucket_trainer.h"
#include "train/tile_schedule.h"
#include "util/split_mix.h"

namespace streamglove {

namespace {

// The seed of tile t's draws in an epoch, apart from the buckets' and the
// rounds' (MixSeed tags with the top bits set).
uint64_t TileSeed(uint64_t seed, uint32_t epoch, uint32_t tile) {
  return MixSeed(seed, epoch, (uint64_t{1} << 61) | tile);
}

// Empties v with room for n, never holding two buffers at once (a vector
// grown by doubling holds its old buffer while copying to the new one:
// three times a round's records at the peak).
template <typename T>
void ClearWithRoom(std::vector<T>* v, size_t n) {
  v->clear();
  if (v->capacity() < n) {
    std::vector<T>().swap(*v);
    v->reserve(n);
  }
}

// Copies of a record with `copies` copies in slice `slice` of `slices`, its
// copies dealt from slice `offset` on.
uint64_t CopiesInSlice(uint64_t copies, uint64_t offset, uint64_t slice, uint64_t slices) {
  const uint64_t first = (slice + slices - offset) % slices;  // copy index of its first
  return copies > first ? (copies - first + slices - 1) / slices : 0;
}

}  // namespace

TileReader::TileReader(const BlockStreamInfo* info, uint64_t seed, uint32_t epoch,
                       const PairTransform* transform, size_t part_updates)
    : info_(info),
      seed_(seed),
      epoch_(epoch),
      parts_(info->tile_parts),
      transform_(transform),
      part_updates_(std::max<size_t>(1, part_updates)),
      sweeps_(transform->unit_updates ? kUnitSweeps : 1),
      order_(SweepRounds(seed, epoch, 0, parts_)),
      round_copies_(parts_, kCopiesUnknown) {
  prefetch_ = std::thread([this] { Prefetch(); });
}

TileReader::~TileReader() {
  if (prefetch_.joinable()) prefetch_.join();
}

void TileReader::Prefetch() {
  const auto start = std::chrono::steady_clock::now();
  try {
    PrefetchPart();
  } catch (const std::bad_alloc&) {
    ahead_status_ =
        Status::IOError(fmt::format("out of memory reading the tiles in {} (the machine, or "
                                    "ulimit -v, gave less than --memory)",
                                    info_->dir));
  } catch (const std::exception& e) {
    ahead_status_ =
        Status::IOError(fmt::format("reading the tiles in {}: {}", info_->dir, e.what()));
  }
  ahead_.read_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void TileReader::PrefetchPart() {
  ahead_.pairs.clear();
  ahead_.bucket_begin.clear();
  ahead_.bucket_noise_part.clear();
  ahead_.records = 0;
  ahead_.updates_per_record = 1;
  ahead_.unconverted = !transform_->unit_updates;
  const bool units = transform_->unit_updates;
  // A round or slice without records or pairs (a tiny stream's) is passed
  // over: such a part means the end.
  while (ahead_status_.ok() && ahead_.records == 0 && ahead_.pairs.empty()) {
    if (units && slice_ < slice_end_ && round_records_ > 0) {
      FillSlice();
      continue;
    }
    if (sweep_ == sweeps_) return;
    ahead_status_ = ReadRound(order_[visit_]);
    if (++visit_ == parts_ && ++sweep_ < sweeps_) {
      visit_ = 0;
      order_ = SweepRounds(seed_, epoch_, sweep_, parts_);
    }
  }
}

uint64_t TileReader::RoundRecords() const {
  uint64_t records = 0;
  for (uint32_t tile : tiles_) records += info_->block_records.at(tile);
  return records;
}

Status TileReader::ReadRound(uint32_t round) {
  tiles_ = RoundTiles(seed_, epoch_, round, parts_);
  if (transform_->unit_updates) return ReadRoundUnits(round);
  ClearWithRoom(&ahead_.pairs, RoundRecords());
  ahead_.bucket_begin.clear();
  ahead_.bucket_noise_part.clear();
  for (uint32_t tile : tiles_) {
    ahead_.bucket_begin.push_back(ahead_.pairs.size());
    ahead_.bucket_noise_part.push_back(tile % parts_);
    SG_RETURN_IF_ERROR(ReadBlock(*info_, tile, &records_));
    for (const PairRecord32& r : records_)
      ahead_.pairs.push_back(TrainingPair{r.row, r.col, 0.0f, r.count});
  }
  ahead_.bucket_begin.push_back(ahead_.pairs.size());
  ahead_.records = ahead_.pairs.size();
  records_.clear();  // its room serves the next round
  return Status::OK();
}

void TileReader::SetSlices(uint64_t copies) {
  const uint64_t per_sweep = sweeps_ * uint64_t{part_updates_};
  const uint64_t sweep_slices = std::max<uint64_t>(1, (copies + per_sweep - 1) / per_sweep);
  slices_ = sweeps_ * sweep_slices;
  slice_ = sweep_ * sweep_slices;
  slice_end_ = slice_ + sweep_slices;
}

Status TileReader::ReadRoundUnits(uint32_t round) {
  const uint64_t records = RoundRecords();
  // The round's first sweep keeps every record until the round's copies,
  // and so its slices, are known; later sweeps keep their own records only.
  const bool known = round_copies_[round] != kCopiesUnknown;
  if (known) SetSlices(round_copies_[round]);
  ClearWithRoom(&round_pairs_, records);
  ClearWithRoom(&copies_, records);
  offsets_.clear();
  tile_begin_.assign(1, 0);
  uint64_t copies = 0;
  for (uint32_t tile : tiles_) {
    SG_RETURN_IF_ERROR(ReadBlock(*info_, tile, &records_));
    const uint64_t tile_seed = TileSeed(seed_, epoch_, tile);
    SplitMix64 random(tile_seed);
    for (size_t j = 0; j < records_.size(); ++j) {
      TrainingPair p = transform_->convert(records_[j]);
      const double x = std::min(static_cast<double>(p.weight), 4e9);
      auto n = static_cast<uint64_t>(x);
      // The top 53 bits as a uniform double in [0, 1).
      if (static_cast<double>(random.Next() >> 11) * 0x1.0p-53 < x - static_cast<double>(n)) ++n;
      copies += n;
      uint64_t offset = 0;
      if (known && !InSweep(n, tile_seed, j, &offset)) continue;
      p.weight = 1;
      round_pairs_.push_back(p);
      copies_.push_back(static_cast<uint32_t>(n));
      if (known) offsets_.push_back(static_cast<uint32_t>(offset));
    }
    tile_begin_.push_back(round_pairs_.size());
  }
  records_.clear();  // its room serves the next round
  round_copies_[round] = copies;
  round_records_ = records;
  round_updates_per_record_ =
      records == 0 ? 1 : static_cast<double>(copies) / static_cast<double>(records);
  if (!known) {
    SetSlices(copies);
    KeepSweepRecords();
  }
  return Status::OK();
}

bool TileReader::InSweep(uint64_t copies, uint64_t tile_seed, size_t index,
                         uint64_t* offset) const {
  *offset = slices_ == 1 ? 0 : SplitMix64::Draw(~tile_seed, index) % slices_;
  // Copy m is in slice (offset + m) mod slices_: counted from the sweep's
  // first slice, copy 0 is at u and the copies fill u, u + 1, .. cyclically,
  // so they reach the sweep's slices [0, width) when there are as many as
  // slices, when u is among them, or when they wrap past the last slice.
  const uint64_t width = slice_end_ - slice_, u = (*offset + slices_ - slice_) % slices_;
  return copies > 0 && (copies >= slices_ || u < width || u + copies > slices_);
}

void TileReader::KeepSweepRecords() {
  size_t kept = 0;
  for (size_t t = 0; t < tiles_.size(); ++t) {
    const size_t begin = tile_begin_[t], end = tile_begin_[t + 1];
    const uint64_t tile_seed = TileSeed(seed_, epoch_, tiles_[t]);
    tile_begin_[t] = kept;
    for (size_t i = begin; i < end; ++i) {
      uint64_t offset = 0;
      if (!InSweep(copies_[i], tile_seed, i - begin, &offset)) continue;
      round_pairs_[kept] = round_pairs_[i];
      copies_[kept++] = copies_[i];
      offsets_.push_back(static_cast<uint32_t>(offset));
    }
  }
  tile_begin_.back() = kept;
  round_pairs_.resize(kept);
  copies_.resize(kept);
}

void TileReader::FillSlice() {
  ahead_.records = round_records_ * (slice_ + 1) / slices_ - round_records_ * slice_ / slices_;
  ahead_.updates_per_record = round_updates_per_record_;
  ahead_.bucket_begin.clear();
  ahead_.bucket_noise_part.clear();
  uint64_t updates = 0;
  for (size_t i = 0; i < round_pairs_.size(); ++i)
    updates += CopiesInSlice(copies_[i], offsets_[i], slice_, slices_);
  std::vector<TrainingPair>& part = ahead_.pairs;
  ClearWithRoom(&part, updates);
  for (size_t t = 0; t < tiles_.size(); ++t) {
    const size_t begin = part.size();
    ahead_.bucket_begin.push_back(begin);
    ahead_.bucket_noise_part.push_back(tiles_[t] % parts_);
    for (size_t i = tile_begin_[t]; i < tile_begin_[t + 1]; ++i)
      part.insert(part.end(), CopiesInSlice(copies_[i], offsets_[i], slice_, slices_),
                  round_pairs_[i]);
    SplitMix64 shuffling(MixSeed(TileSeed(seed_, epoch_, tiles_[t]), slice_, 1));
    ShuffleInPlace(part.data() + begin, part.size() - begin, shuffling);
  }
  ahead_.bucket_begin.push_back(part.size());
  ++slice_;
  if (slice_ == slice_end_) {
    // The sweep's share is spent. The room stays for the next sweep, which
    // reads a round again: a buffer freed and allocated anew costs its
    // page faults each time (MapLargeAllocations maps it apart).
    round_pairs_.clear();
    copies_.clear();
    offsets_.clear();
  }
}

Status TileReader::Next(BlockPart* part, bool* done) {
  if (prefetch_.joinable()) prefetch_.join();
  SG_RETURN_IF_ERROR(ahead_status_);
  *done = ahead_.records == 0 && ahead_.pairs.empty();
  if (*done) {
    exhausted_ = true;
    *part = BlockPart();
    return Status::OK();
  }
  std::swap(*part, ahead_);
  exhausted_ = sweep_ >= sweeps_ && (!transform_->unit_updates || slice_ >= slice_end_);
  if (!exhausted_) {
    prefetch_ = std::thread([this] { Prefetch(); });
  } else {
    ahead_ = BlockPart();
  }
  return Status::OK();
}

}  // namespace streamglove
