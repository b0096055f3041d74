#include "train/block_reader.h"

#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <new>
#include <random>
#include <sstream>

#include <fmt/format.h>
#include <tbb/parallel_for.h>

#include "train/block_file_reader.h"
#include "util/byte_source.h"
#include "util/crc32.h"
#include "util/file.h"
#include "util/hash.h"
#include "util/split_mix.h"

namespace streamglove {

namespace {

constexpr size_t kReadChunkRecords = size_t{1} << 16;  // 768 KiB of a block read at a time

// The bucket of record i of a block scattered from `seed`: the i-th draw of
// SplitMix64(seed).Below(buckets), computed without the draws before it, so
// that segments of a block placed on several threads land exactly where one
// thread placing the records in order puts them.
size_t RecordBucket(uint64_t seed, size_t i, size_t buckets) {
  __extension__ typedef unsigned __int128 Uint128;
  return static_cast<size_t>((static_cast<Uint128>(SplitMix64::Draw(seed, i)) * buckets) >> 64);
}

// Sets v's size to n, its old contents unwanted. A vector that grows keeps
// its old buffer until the new one is allocated: for a block buffer, a third
// block in memory where the budget counts two.
template <typename T>
void ResizeDiscarding(std::vector<T>* v, size_t n) {
  if (v->capacity() < n) std::vector<T>().swap(*v);
  v->resize(n);
}

}  // namespace

void PrepareBucket(BlockPart* part, size_t k, const PairTransform& transform, uint64_t seed) {
  TrainingPair* const begin = part->pairs.data() + part->bucket_begin[k];
  const size_t n = part->bucket_begin[k + 1] - part->bucket_begin[k];
  if (!part->unconverted)
    return;  // a part of unit updates: converted and shuffled whole by the reader
  for (size_t i = 0; i < n; ++i)
    begin[i] = transform.convert(PairRecord32{begin[i].row, begin[i].col, begin[i].weight});
  SplitMix64 random(seed);
  ShuffleInPlace(begin, n, random);
}

BlockReader::BlockReader(const BlockStreamInfo* info, std::vector<uint32_t> order,
                         std::vector<uint64_t> shuffle_seeds, const PairTransform* transform,
                         size_t bucket_records, tbb::task_arena* scatter_arena)
    : info_(info),
      order_(std::move(order)),
      shuffle_seeds_(std::move(shuffle_seeds)),
      transform_(transform),
      bucket_records_(std::max<size_t>(1, bucket_records)),
      scatter_arena_(scatter_arena) {
  if (transform_->unit_updates) {
    uint64_t largest = 0;
    for (uint64_t n : info_->block_records) largest = std::max(largest, n);
    part_updates_ = static_cast<size_t>(std::max<uint64_t>(1, largest / 2));
    due_capacity_ = static_cast<size_t>(largest / 6);  // 24-byte entries: 4 bytes per block record
    for (uint32_t b : order_) records_left_ += info_->block_records[b];
    due_.reserve(due_capacity_);  // allocated once: never past the memory accounted
  }
  prefetch_ = std::thread([this] { Prefetch(); });
}

void BlockReader::ReleaseBuffers() {
  ahead_ = BlockPart();
  std::vector<PairRecord32>().swap(block_);
  std::vector<PairRecord32>().swap(chunk_);
  std::vector<DueCopies>().swap(due_);
}

BlockReader::~BlockReader() {
  if (prefetch_.joinable()) prefetch_.join();
}

void BlockReader::Prefetch() {
  const auto start = std::chrono::steady_clock::now();
  // Nothing may escape this thread (it would end the process): an
  // allocation refused, or anything the transform throws, is the part's
  // error, returned by Next().
  try {
    PrefetchPart();
  } catch (const std::bad_alloc&) {
    ahead_status_ =
        Status::IOError(fmt::format("out of memory reading the block stream in {} (the machine, or "
                                    "ulimit -v, gave less than --memory)",
                                    info_->dir));
  } catch (const std::exception& e) {
    ahead_status_ =
        Status::IOError(fmt::format("reading the block stream in {}: {}", info_->dir, e.what()));
  }
  ahead_.read_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void BlockReader::PrefetchPart() {
  ahead_.pairs.clear();
  ahead_.bucket_begin.clear();
  ahead_.records = 0;
  ahead_.updates_per_record = 1;
  ahead_.unconverted = false;
  if (transform_->unit_updates) {
    PrefetchUnitUpdates();
    return;
  }
  // An empty block (possible in a tiny stream) is passed over: a part with
  // no records means the end.
  while (ahead_status_.ok() && ahead_.records == 0 && next_ < order_.size()) PrefetchBlock();
}

template <typename Fn>
Status BlockReader::ForEachSegment(size_t segments, Fn fn) {
  std::vector<Status> status(segments);
  if (segments == 1) {
    status[0] = fn(size_t{0});
  } else {
    scatter_arena_->execute([&] {
      tbb::parallel_for(
          size_t{0}, segments, [&](size_t s) { status[s] = fn(s); }, tbb::simple_partitioner());
    });
  }
  for (const Status& st : status) SG_RETURN_IF_ERROR(st);
  return Status::OK();
}

template <typename Place>
Status BlockReader::ReadRawSegment(const std::string& path, size_t records, size_t first,
                                   size_t end, size_t chunk_records, uint32_t* crc,
                                   Place place) const {
  SequentialFile file;
  SG_RETURN_IF_ERROR(file.Open(path));
  if (file.size() != records * sizeof(PairRecord32)) {
    return Status::Corruption(
        fmt::format("{}: block {} than its manifest says", path,
                    file.size() < records * sizeof(PairRecord32) ? "shorter" : "longer"));
  }
  SG_RETURN_IF_ERROR(file.SeekTo(first * sizeof(PairRecord32)));
  std::vector<PairRecord32> chunk(std::min(end - first, chunk_records));
  *crc = 0;
  for (size_t i = first; i < end;) {
    const size_t m = std::min(end - i, chunk.size());
    char* at = reinterpret_cast<char*>(chunk.data());
    for (size_t left = m * sizeof(PairRecord32); left > 0;) {
      size_t got = 0;
      SG_RETURN_IF_ERROR(file.Read(at, left, &got));
      if (got == 0) {
        return Status::Corruption(fmt::format("{}: block shorter than its manifest says", path));
      }
      at += got;
      left -= got;
    }
    *crc = ExtendCrc32(*crc, chunk.data(), m * sizeof(PairRecord32));
    for (size_t k = 0; k < m; ++k) place(i + k, chunk[k]);
    i += m;
  }
  return Status::OK();
}

template <typename T, typename Make>
Status BlockReader::ScatterBlock(std::vector<T>* to, std::vector<size_t>* bucket_begin, Make make) {
  const size_t block = order_[next_];
  const size_t n = info_->block_records[block];
  const uint64_t seed = shuffle_seeds_[next_];
  const size_t buckets = std::max<size_t>(1, (n + bucket_records_ - 1) / bucket_records_);
  // Segments of the block are sized and placed each on one thread; a
  // compressed block is read in order, as one.
  const size_t segments =
      info_->compressed || scatter_arena_ == nullptr
          ? 1
          : std::clamp<size_t>(n / kReadChunkRecords, 1,
                               static_cast<size_t>(scatter_arena_->max_concurrency()));
  const auto segment_begin = [&](size_t s) { return n * s / segments; };
  // cursor[s * buckets + k]: first how many records of segment s go to
  // bucket k, then where its next one goes. Record i's bucket is a pure
  // function of (seed, i), so it is drawn twice (sizing, then placing) and
  // the block needs no second buffer.
  std::vector<size_t> cursor(segments * buckets, 0);
  SG_RETURN_IF_ERROR(ForEachSegment(segments, [&](size_t s) {
    size_t* count = cursor.data() + s * buckets;
    for (size_t i = segment_begin(s); i < segment_begin(s + 1); ++i) {
      ++count[RecordBucket(seed, i, buckets)];
    }
    return Status::OK();
  }));
  std::vector<size_t>& begin = *bucket_begin;
  begin.assign(buckets + 1, 0);
  size_t at = 0;
  for (size_t k = 0; k < buckets; ++k) {
    begin[k] = at;
    for (size_t s = 0; s < segments; ++s) {
      const size_t records = cursor[s * buckets + k];
      cursor[s * buckets + k] = at;
      at += records;
    }
  }
  begin[buckets] = n;
  ResizeDiscarding(to, n);
  T* out = to->data();
  if (segments == 1) {
    BlockFileReader file;
    SG_RETURN_IF_ERROR(file.Open(*info_, block));
    chunk_.resize(std::min(n, kReadChunkRecords));
    for (size_t done = 0; done < n;) {
      const size_t m = std::min(n - done, chunk_.size());
      SG_RETURN_IF_ERROR(file.Read(chunk_.data(), m));
      for (size_t i = 0; i < m; ++i) {
        out[cursor[RecordBucket(seed, done + i, buckets)]++] = make(chunk_[i]);
      }
      done += m;
    }
    return file.Finish();
  }
  // Each segment reads its own records (the chunk's memory shared out).
  const std::string path = BlockPath(*info_, block);
  const size_t chunk_records = std::max<size_t>(4096, kReadChunkRecords / segments);
  std::vector<uint32_t> crcs(segments);
  SG_RETURN_IF_ERROR(ForEachSegment(segments, [&](size_t s) {
    size_t* next = cursor.data() + s * buckets;
    return ReadRawSegment(path, n, segment_begin(s), segment_begin(s + 1), chunk_records, &crcs[s],
                          [&](size_t i, const PairRecord32& r) {
                            out[next[RecordBucket(seed, i, buckets)]++] = make(r);
                          });
  }));
  uint32_t crc = crcs[0];
  for (size_t s = 1; s < segments; ++s) {
    crc = CombineCrc32(crc, crcs[s],
                       (segment_begin(s + 1) - segment_begin(s)) * sizeof(PairRecord32));
  }
  if (crc != info_->block_crcs.at(block)) {
    return Status::Corruption(
        fmt::format("{}: checksum mismatch: the block is damaged (remove its folder and train "
                    "again: it is rebuilt)",
                    path));
  }
  return Status::OK();
}

void BlockReader::PrefetchBlock() {
  ahead_status_ = ScatterBlock(&ahead_.pairs, &ahead_.bucket_begin, [](const PairRecord32& r) {
    return TrainingPair{r.row, r.col, 0.0f, r.count};
  });
  if (!ahead_status_.ok()) return;
  ahead_.records = ahead_.pairs.size();
  ahead_.unconverted = true;
  ++next_;
}

void BlockReader::TakeDueCopies(double share, std::vector<TrainingPair>* part) {
  size_t kept = 0;
  for (DueCopies& due : due_) {
    const size_t space = part_updates_ - part->size();
    uint64_t take =
        share >= 1 ? due.copies : std::binomial_distribution<uint64_t>(due.copies, share)(rng_);
    take = std::min<uint64_t>(take, space);
    part->insert(part->end(), take, due.pair);
    due.copies -= take;
    if (due.copies > 0) due_[kept++] = due;
  }
  due_.resize(kept);
}

void BlockReader::PrefetchUnitUpdates() {
  std::vector<TrainingPair>& part = ahead_.pairs;
  part.reserve(part_updates_);  // exactly: a part never grows past it
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  // This part's share of what is left of the pass: one over the parts left,
  // estimated from the copies drawn per record so far (a pass's first part
  // takes none of the copies due: there are none yet).
  uint64_t due_copies = 0;
  for (const DueCopies& due : due_) due_copies += due.copies;
  const double per_record =
      records_read_ > 0 ? static_cast<double>(updates_drawn_) / static_cast<double>(records_read_)
                        : 1.0;
  const double updates_left =
      static_cast<double>(due_copies) + per_record * static_cast<double>(records_left_);
  const double share =
      std::min(1.0, static_cast<double>(part_updates_) / std::max(1.0, updates_left));
  TakeDueCopies(share, &part);
  while (part.size() < part_updates_) {
    if (pending_copies_ > 0) {
      const size_t copies = std::min<uint64_t>(pending_copies_, part_updates_ - part.size());
      part.insert(part.end(), copies, pending_);
      pending_copies_ -= copies;
    } else if (block_next_ < block_.size()) {
      pending_ = transform_->convert(block_[block_next_++]);
      ++ahead_.records;
      const double x = std::min(static_cast<double>(pending_.weight), 1e15);
      uint64_t copies = static_cast<uint64_t>(x);
      if (uniform(rng_) < x - static_cast<double>(copies)) ++copies;
      pending_.weight = 1;
      --records_left_;
      ++records_read_;
      updates_drawn_ += copies;
      pending_copies_ = copies;
      if (copies >= kSpreadMinCopies && due_.size() < due_capacity_ && share < 1) {
        pending_copies_ = std::binomial_distribution<uint64_t>(copies, share)(rng_);
        if (copies > pending_copies_) due_.push_back({pending_, copies - pending_copies_});
      }
    } else if (next_ < order_.size()) {
      // The next block, shuffled so that a part cut from it is a random
      // sample: scattered, then each bucket shuffled here, in cache.
      std::vector<size_t> bucket_begin;
      ahead_status_ = ScatterBlock(&block_, &bucket_begin, [](const PairRecord32& r) { return r; });
      if (!ahead_status_.ok()) return;
      SplitMix64 shuffling(shuffle_seeds_[next_] ^ 0x9E3779B97F4A7C15ull);
      for (size_t k = 0; k + 1 < bucket_begin.size(); ++k) {
        ShuffleInPlace(block_.data() + bucket_begin[k], bucket_begin[k + 1] - bucket_begin[k],
                       shuffling);
      }
      rng_.seed(shuffle_seeds_[next_]);
      block_next_ = 0;
      ++next_;
    } else if (!due_.empty()) {
      TakeDueCopies(1.0, &part);  // the pass's last records are read: all copies are due now
    } else {
      break;
    }
  }
  std::shuffle(part.begin(), part.end(), rng_);
  ahead_.updates_per_record =
      records_read_ > 0 ? static_cast<double>(updates_drawn_) / static_cast<double>(records_read_)
                        : 1.0;
  // Already a random order: the buckets only share the work out.
  for (size_t at = 0; at < part.size(); at += bucket_records_) ahead_.bucket_begin.push_back(at);
  ahead_.bucket_begin.push_back(part.size());
}

Status BlockReader::Next(BlockPart* part, bool* done) {
  if (prefetch_.joinable()) prefetch_.join();
  SG_RETURN_IF_ERROR(ahead_status_);
  // (A part of unit updates may stand for no new record: the last copies of
  // a heavy pair. Only an empty part is the end.)
  *done = ahead_.records == 0 && ahead_.pairs.empty();
  if (*done) {
    exhausted_ = true;
    part->pairs.clear();
    part->bucket_begin.clear();
    part->records = 0;
    part->unconverted = false;
    ReleaseBuffers();
    return Status::OK();
  }
  std::swap(*part, ahead_);
  exhausted_ = !MoreToRead();
  if (!exhausted_) {
    prefetch_ = std::thread([this] { Prefetch(); });
  } else {
    ReleaseBuffers();  // the next call says done
  }
  return Status::OK();
}

}  // namespace streamglove
