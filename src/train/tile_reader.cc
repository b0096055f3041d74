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
      part_updates_(std::max<size_t>(1, part_updates)) {
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
  if (transform_->unit_updates && slice_ < slices_ && !round_pairs_.empty()) {
    FillSlice();
    return;
  }
  // A round without records (a tiny stream) is passed over: a part with
  // no records means the end.
  while (ahead_status_.ok() && ahead_.records == 0 && round_ < parts_) {
    ahead_status_ = ReadRound();
    ++round_;
  }
  if (ahead_status_.ok() && transform_->unit_updates && ahead_.records > 0) FillSlice();
}

Status TileReader::ReadRound() {
  tiles_ = RoundTiles(seed_, epoch_, round_, parts_);
  const bool units = transform_->unit_updates;
  uint64_t records = 0;
  for (uint32_t tile : tiles_) records += info_->block_records.at(tile);
  ClearWithRoom(units ? &round_pairs_ : &ahead_.pairs, records);
  if (units) ClearWithRoom(&copies_, records);
  tile_begin_.assign(1, 0);
  ahead_.bucket_begin.clear();
  ahead_.bucket_noise_part.clear();
  std::vector<TrainingPair>& out = units ? round_pairs_ : ahead_.pairs;
  uint64_t copies = 0;
  for (uint32_t tile : tiles_) {
    ahead_.bucket_begin.push_back(out.size());
    ahead_.bucket_noise_part.push_back(tile % parts_);
    SG_RETURN_IF_ERROR(ReadBlock(*info_, tile, &records_));
    SplitMix64 random(TileSeed(seed_, epoch_, tile));
    for (const PairRecord32& r : records_) {
      if (!units) {
        out.push_back(TrainingPair{r.row, r.col, 0.0f, r.count});
        continue;
      }
      TrainingPair p = transform_->convert(r);
      const double x = std::min(static_cast<double>(p.weight), 4e9);
      auto n = static_cast<uint64_t>(x);
      // The top 53 bits as a uniform double in [0, 1).
      if (static_cast<double>(random.Next() >> 11) * 0x1.0p-53 < x - static_cast<double>(n)) ++n;
      p.weight = 1;
      out.push_back(p);
      copies_.push_back(static_cast<uint32_t>(n));
      copies += n;
    }
    tile_begin_.push_back(out.size());
  }
  ahead_.bucket_begin.push_back(out.size());
  ahead_.records = out.size();
  if (units) {
    slices_ = std::max<uint64_t>(1, (copies + part_updates_ - 1) / part_updates_);
    slice_ = 0;
    ahead_.updates_per_record =
        out.empty() ? 1 : static_cast<double>(copies) / static_cast<double>(out.size());
  }
  std::vector<PairRecord32>().swap(records_);
  return Status::OK();
}

void TileReader::FillSlice() {
  const uint64_t n = round_pairs_.size();
  ahead_.records = n * (slice_ + 1) / slices_ - n * slice_ / slices_;
  ahead_.bucket_begin.clear();
  ahead_.bucket_noise_part.clear();
  // Each tile's seed once (MixSeed hashes a formatted string); a record's
  // offset is a pure function of it and the record's index.
  std::vector<uint64_t> tile_seeds(tiles_.size());
  for (size_t t = 0; t < tiles_.size(); ++t) tile_seeds[t] = TileSeed(seed_, epoch_, tiles_[t]);
  const auto copies_in_slice = [&](size_t t, size_t i) {
    const uint64_t offset = slices_ == 1 ? 0 : SplitMix64::Draw(~tile_seeds[t], i) % slices_;
    return CopiesInSlice(copies_[i], offset, slice_, slices_);
  };
  uint64_t updates = 0;
  for (size_t t = 0; t < tiles_.size(); ++t) {
    for (size_t i = tile_begin_[t]; i < tile_begin_[t + 1]; ++i) updates += copies_in_slice(t, i);
  }
  std::vector<TrainingPair>& part = ahead_.pairs;
  ClearWithRoom(&part, updates);
  for (size_t t = 0; t < tiles_.size(); ++t) {
    const size_t begin = part.size();
    ahead_.bucket_begin.push_back(begin);
    ahead_.bucket_noise_part.push_back(tiles_[t] % parts_);
    for (size_t i = tile_begin_[t]; i < tile_begin_[t + 1]; ++i)
      part.insert(part.end(), copies_in_slice(t, i), round_pairs_[i]);
    SplitMix64 shuffling(MixSeed(tile_seeds[t], slice_, 1));
    ShuffleInPlace(part.data() + begin, part.size() - begin, shuffling);
  }
  ahead_.bucket_begin.push_back(part.size());
  ++slice_;
  if (slice_ == slices_) {  // the round is spent: its memory goes back
    std::vector<TrainingPair>().swap(round_pairs_);
    std::vector<uint32_t>().swap(copies_);
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
  exhausted_ = round_ >= parts_ && (!transform_->unit_updates || slice_ >= slices_);
  if (!exhausted_) {
    prefetch_ = std::thread([this] { Prefetch(); });
  } else {
    ahead_ = BlockPart();
  }
  return Status::OK();
}

}  // namespace streamglove
