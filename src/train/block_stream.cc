#include "train/block_stream.h"

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

#include "util/byte_source.h"
#include "util/crc32.h"
#include "util/file.h"
#include "util/hash.h"
#include "util/split_mix.h"

namespace streamglove {

namespace {

constexpr uint32_t kMaxBlocks = 1024;
constexpr size_t kBlockWriteBufferBytes = size_t{32} << 10;
constexpr const char* kManifestMagic = "streamglove-blocks 3";
constexpr int kBlockZstdLevel = 1;  // 12-byte records shrink to ~45% at ~120 MB/s per core
constexpr size_t kReadChunkRecords = size_t{1} << 16;  // 768 KiB of a block read at a time

// The bucket of record i of a block scattered from `seed`: the i-th draw of
// SplitMix64(seed).Below(buckets), computed without the draws before it, so
// that segments of a block placed on several threads land exactly where one
// thread placing the records in order puts them.
size_t RecordBucket(uint64_t seed, size_t i, size_t buckets) {
  __extension__ typedef unsigned __int128 Uint128;
  return static_cast<size_t>((static_cast<Uint128>(SplitMix64::Draw(seed, i)) * buckets) >> 64);
}

// The page cache this machine could give the stream (MemAvailable), or 0.
uint64_t AvailableMemoryBytes() {
  std::string meminfo;
  if (!ReadFileToString("/proc/meminfo", &meminfo).ok()) return 0;
  const size_t at = meminfo.find("MemAvailable:");
  if (at == std::string::npos) return 0;
  return std::strtoull(meminfo.c_str() + at + 13, nullptr, 10) * 1024;
}

// Writes one block file. Records collect in a buffer of
// kBlockWriteBufferBytes; each full one is added to the block's CRC (per
// 32 KiB: per 12-byte record, wiki100M's stream took 6.2-6.3 s to build
// instead of 4.4-4.8) and written out, raw through the file's own buffer or as
// one zstd frame, so a compressed stream never lies on disk uncompressed
// (32 KiB frames came out 0.5% larger than one frame per block on a wiki100M
// block).
class BlockFileWriter {
 public:
  // `cctx` (shared by the writers of one thread, may be null for raw blocks)
  // and `frame` (scratch) must outlive the writer.
  Status Open(const std::string& path, ZSTD_CCtx* cctx, std::string* frame) {
    cctx_ = cctx;
    frame_ = frame;
    buffer_.reserve(kBlockWriteBufferBytes);
    return file_.Open(path, kBlockWriteBufferBytes);
  }
  Status Append(const PairRecord32& r) {
    buffer_.append(reinterpret_cast<const char*>(&r), sizeof(r));
    return buffer_.size() >= kBlockWriteBufferBytes ? Flush() : Status::OK();
  }
  Status Close() {
    SG_RETURN_IF_ERROR(Flush());
    return file_.Close(/*sync=*/false);
  }
  // The CRC-32 of the records appended (after Close()).
  uint32_t crc() const { return crc_; }

 private:
  // Writes out the collected records, compressed into one frame if asked.
  Status Flush() {
    if (buffer_.empty()) return Status::OK();
    crc_ = ExtendCrc32(crc_, buffer_.data(), buffer_.size());
    if (cctx_ == nullptr) {
      SG_RETURN_IF_ERROR(file_.Append(buffer_));
      buffer_.clear();
      return Status::OK();
    }
    frame_->resize(ZSTD_compressBound(buffer_.size()));
    const size_t n = ZSTD_compressCCtx(cctx_, frame_->data(), frame_->size(), buffer_.data(),
                                       buffer_.size(), kBlockZstdLevel);
    if (ZSTD_isError(n))
      return Status::IOError(fmt::format("{}: {}", file_.path(), ZSTD_getErrorName(n)));
    buffer_.clear();
    return file_.Append(std::string_view(frame_->data(), n));
  }

  WritableFile file_;
  std::string buffer_;
  ZSTD_CCtx* cctx_ = nullptr;
  std::string* frame_ = nullptr;
  uint32_t crc_ = 0;
};

Status ReadManifest(const std::string& dir, std::string* stamp, BlockStreamInfo* info) {
  const std::string path = dir + "/MANIFEST";
  if (!PathExists(path)) return Status::NotFound(path);
  std::string all;
  SG_RETURN_IF_ERROR(ReadFileToString(path, &all));
  std::istringstream in(all);
  std::string magic;
  std::getline(in, magic);
  if (magic != kManifestMagic)
    return Status::Corruption(fmt::format("{}: not a block stream manifest", path));
  // "key value" lines in a fixed order, each key checked.
  const auto field = [&](const char* want, auto* value) {
    std::string key;
    return static_cast<bool>(in >> key >> *value) && key == want;
  };
  std::string compression;
  uint64_t blocks = 0;
  if (!field("stamp", stamp) || !field("vocab", &info->vocab) || !field("pairs", &info->pairs) ||
      !field("compression", &compression) || !field("blocks", &blocks) || blocks > kMaxBlocks ||
      (compression != "zstd" && compression != "none")) {
    return Status::Corruption(fmt::format("{}: malformed manifest", path));
  }
  info->compressed = compression == "zstd";
  info->block_records.resize(blocks);
  info->block_crcs.resize(blocks);
  uint64_t pairs = 0;
  for (size_t b = 0; b < blocks; ++b) {
    if (!(in >> info->block_records[b] >> info->block_crcs[b])) {
      return Status::Corruption(fmt::format("{}: truncated manifest", path));
    }
    pairs += info->block_records[b];
  }
  if (pairs != info->pairs)
    return Status::Corruption(fmt::format("{}: block sizes do not add up to the pairs", path));
  return Status::OK();
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

std::string BlockPath(const BlockStreamInfo& info, size_t i) {
  return fmt::format("{}/block-{:05d}{}", info.dir, i, info.compressed ? ".zst" : "");
}

std::string StoreStamp(Store* store) {
  std::vector<InputRecord> inputs;
  IngestProgress progress;
  bool partial = false;
  // Words counted, not ids assigned: an interrupted ingest may leave ids
  // that no batch counted, and the same inputs must give the same stream.
  uint64_t words = 0;
  for (const VocabEntry& e : store->vocab()) words += e.count > 0;
  std::string key = fmt::format("v{} w{} ", words, store->config().window);
  if (store->ListInputs(&inputs).ok()) {
    std::sort(inputs.begin(), inputs.end(),
              [](auto& a, auto& b) { return a.fingerprint < b.fingerprint; });
    for (const InputRecord& r : inputs) key += r.fingerprint + " ";
  }
  if (store->GetProgress(&progress, &partial).ok() && partial) {
    key += fmt::format("partial {} {}", progress.fingerprint, progress.offset);
  }
  return fmt::format("{:016x}", HashBytes(key));
}

namespace {

// Builds the stream of `store` into `dir` (emptied first) for the words of
// `ranked`, as OpenBlockStream describes; `stamp`: StoreStamp(store).
Status BuildBlockStream(Store* store, const std::string& dir, const RankedVocab& ranked,
                        size_t block_bytes, BlockCompression compression, const std::string& stamp,
                        BlockStreamInfo* info) {
  const uint32_t vocab = ranked.size();
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  if (!std::filesystem::create_directories(dir, ec) && ec)
    return Status::IOError(fmt::format("{}: {}", dir, ec.message()));
  // About 3 bytes of store per pair: this overestimates the pairs a little,
  // so blocks come out no larger than asked.
  const uint64_t estimated_pairs = std::max<uint64_t>(1, store->SizeOnDisk() / 3);
  const uint64_t estimated_bytes = estimated_pairs * sizeof(PairRecord32);
  // Rounded up: rounded down, a stream of 1.5 blocks' bytes came out as one
  // block too large for the reuse check below, and was rebuilt on every run.
  const size_t target = std::max<size_t>(block_bytes, 1);
  const auto blocks = static_cast<uint32_t>(
      std::clamp<uint64_t>((estimated_bytes + target - 1) / target, 1, kMaxBlocks));
  // Compression pays when the page cache cannot hold the stream, so that
  // every epoch reads it from the disk: half the bytes to read (and to store).
  info->compressed =
      compression == BlockCompression::kZstd ||
      (compression == BlockCompression::kAuto && estimated_bytes > AvailableMemoryBytes() / 2);
  std::unique_ptr<ZSTD_CCtx, size_t (*)(ZSTD_CCtx*)> cctx(
      info->compressed ? ZSTD_createCCtx() : nullptr, ZSTD_freeCCtx);
  if (info->compressed && !cctx)
    return Status::IOError(fmt::format("{}: cannot create a zstd compressor", dir));
  std::string frame;
  std::vector<BlockFileWriter> files(blocks);
  for (uint32_t b = 0; b < blocks; ++b)
    SG_RETURN_IF_ERROR(files[b].Open(BlockPath(*info, b), cctx.get(), &frame));
  info->block_records.assign(blocks, 0);
  // Deterministic for a given store, so a rebuilt stream is the same stream.
  std::mt19937_64 rng(HashBytes(stamp) ^ vocab);
  const double scale = static_cast<double>(store->config().scale);
  SG_RETURN_IF_ERROR(
      ForEachRankedPair(store, ranked, [&](uint32_t row, uint32_t col, uint64_t value) {
        const PairRecord32 r{row, col, static_cast<float>(static_cast<double>(value) / scale)};
        const uint32_t b = static_cast<uint32_t>(rng() % blocks);
        ++info->block_records[b];
        ++info->pairs;
        return files[b].Append(r);
      }));
  for (BlockFileWriter& f : files) {
    SG_RETURN_IF_ERROR(f.Close());
    info->block_crcs.push_back(f.crc());
  }
  std::string manifest =
      fmt::format("{}\nstamp {}\nvocab {}\npairs {}\ncompression {}\nblocks {}\n", kManifestMagic,
                  stamp, vocab, info->pairs, info->compressed ? "zstd" : "none", blocks);
  for (uint32_t b = 0; b < blocks; ++b)
    manifest += fmt::format("{} {}\n", info->block_records[b], info->block_crcs[b]);
  AtomicFileWriter out;
  SG_RETURN_IF_ERROR(out.Open(dir + "/MANIFEST"));
  SG_RETURN_IF_ERROR(out.Append(manifest));
  SG_RETURN_IF_ERROR(out.Commit());
  info->vocab = vocab;
  info->built = true;
  return Status::OK();
}

}  // namespace

Status OpenBlockStream(Store* store, const std::string& dir, const RankedVocab& ranked,
                       size_t block_bytes, BlockCompression compression, BlockStreamInfo* info) {
  const uint32_t vocab = ranked.size();
  *info = BlockStreamInfo();
  info->dir = dir;
  const std::string stamp = StoreStamp(store);
  std::string have_stamp;
  BlockStreamInfo existing;
  // Reused only when built for this store and cut, with blocks that fit this
  // run's budget (random routing makes blocks differ from the target a little).
  const auto fits = [&](const BlockStreamInfo& b) {
    uint64_t largest = 0;
    for (uint64_t n : b.block_records) largest = std::max(largest, n);
    return largest * sizeof(PairRecord32) <= block_bytes + block_bytes / 4;
  };
  const auto compression_ok = [&](const BlockStreamInfo& b) {
    return compression == BlockCompression::kAuto ||
           b.compressed == (compression == BlockCompression::kZstd);
  };
  if (ReadManifest(dir, &have_stamp, &existing).ok() && have_stamp == stamp &&
      existing.vocab == vocab && fits(existing) && compression_ok(existing)) {
    existing.dir = dir;
    *info = existing;
    return Status::OK();
  }

  // A build that fails (a full disk) leaves no partial blocks: without a
  // manifest they are never read, and would hold the disk until the next
  // training rebuilt them.
  const Status s = BuildBlockStream(store, dir, ranked, block_bytes, compression, stamp, info);
  if (!s.ok()) {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  return s;
}

namespace {

// One block file's records, read in order: raw blocks as they are (their
// first bytes could pass for a compression magic), compressed ones through a
// zstd ByteSource. Finish() checks that the file ended with the records and
// that they match the manifest's CRC.
class BlockFileReader {
 public:
  Status Open(const BlockStreamInfo& info, size_t block) {
    path_ = BlockPath(info, block);
    want_crc_ = info.block_crcs.at(block);
    crc_ = 0;
    return info.compressed ? OpenByteSource(path_, &zstd_) : plain_.Open(path_);
  }
  // Reads exactly n records into `to`.
  Status Read(PairRecord32* to, size_t n) {
    char* at = reinterpret_cast<char*>(to);
    size_t left = n * sizeof(PairRecord32);
    while (left > 0) {
      size_t got = 0;
      SG_RETURN_IF_ERROR(ReadSome(at, left, &got));
      if (got == 0)
        return Status::Corruption(fmt::format("{}: block shorter than its manifest says", path_));
      crc_ = ExtendCrc32(crc_, at, got);
      at += got;
      left -= got;
    }
    return Status::OK();
  }
  Status Finish() {
    char extra;
    size_t got = 0;
    SG_RETURN_IF_ERROR(ReadSome(&extra, 1, &got));
    if (got != 0)
      return Status::Corruption(fmt::format("{}: block longer than its manifest says", path_));
    if (crc_ != want_crc_) {
      return Status::Corruption(
          fmt::format("{}: checksum mismatch: the block is damaged (remove its folder and train "
                      "again: it is rebuilt)",
                      path_));
    }
    return Status::OK();
  }

 private:
  Status ReadSome(char* to, size_t n, size_t* got) {
    return zstd_ ? zstd_->Read(to, n, got) : plain_.Read(to, n, got);
  }

  std::string path_;
  std::unique_ptr<ByteSource> zstd_;
  SequentialFile plain_;
  uint32_t crc_ = 0, want_crc_ = 0;
};

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
