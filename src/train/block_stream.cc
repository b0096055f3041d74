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

#include "train/tile_schedule.h"
#include "util/byte_source.h"
#include "util/crc32.h"
#include "util/file.h"
#include "util/hash.h"
#include "util/split_mix.h"

namespace streamglove {

namespace {

constexpr uint32_t kMaxBlocks = 1024;
constexpr size_t kBlockWriteBufferBytes = size_t{32} << 10;
// The most the writers' buffers take together (two a block): 1024 tiles
// at 32 KiB each would hold 64 MiB while the stream is built, which a small
// --memory does not leave; a writer's buffer is then smaller, down to 4 KiB.
constexpr size_t kBlockWriteBuffersBytes = size_t{8} << 20;
constexpr size_t kMinBlockWriteBufferBytes = size_t{4} << 10;
constexpr const char* kManifestMagic = "streamglove-blocks 4";
constexpr int kBlockZstdLevel = 1;  // 12-byte records shrink to ~45% at ~120 MB/s per core

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
  Status Open(const std::string& path, size_t buffer_bytes, ZSTD_CCtx* cctx, std::string* frame) {
    cctx_ = cctx;
    frame_ = frame;
    buffer_bytes_ = buffer_bytes;
    buffer_.reserve(buffer_bytes);
    return file_.Open(path, buffer_bytes);
  }
  Status Append(const PairRecord32& r) {
    buffer_.append(reinterpret_cast<const char*>(&r), sizeof(r));
    return buffer_.size() >= buffer_bytes_ ? Flush() : Status::OK();
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
  size_t buffer_bytes_ = kBlockWriteBufferBytes;
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
      !field("compression", &compression) || !field("tiles", &info->tile_parts) ||
      !field("blocks", &blocks) || blocks > kMaxBlocks ||
      (compression != "zstd" && compression != "none") ||
      (info->tile_parts > 0 && blocks != uint64_t{info->tile_parts} * info->tile_parts)) {
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
                        size_t block_bytes, BlockLayout layout, BlockCompression compression,
                        const std::string& stamp, BlockStreamInfo* info) {
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
  const uint32_t parts =
      layout == BlockLayout::kTiles ? ChooseTileParts(estimated_bytes, target) : 0;
  info->tile_parts = parts;
  const auto blocks = parts > 0 ? parts * parts
                                : static_cast<uint32_t>(std::clamp<uint64_t>(
                                      (estimated_bytes + target - 1) / target, 1, kMaxBlocks));
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
  const size_t buffer_bytes = std::clamp(kBlockWriteBuffersBytes / (2 * size_t{blocks}),
                                         kMinBlockWriteBufferBytes, kBlockWriteBufferBytes);
  for (uint32_t b = 0; b < blocks; ++b)
    SG_RETURN_IF_ERROR(files[b].Open(BlockPath(*info, b), buffer_bytes, cctx.get(), &frame));
  info->block_records.assign(blocks, 0);
  // Deterministic for a given store, so a rebuilt stream is the same stream.
  std::mt19937_64 rng(HashBytes(stamp) ^ vocab);
  const double scale = static_cast<double>(store->config().scale);
  SG_RETURN_IF_ERROR(
      ForEachRankedPair(store, ranked, [&](uint32_t row, uint32_t col, uint64_t value) {
        const PairRecord32 r{row, col, static_cast<float>(static_cast<double>(value) / scale)};
        const uint32_t b = parts > 0 ? TileId(TilePart(row, parts), TilePart(col, parts), parts)
                                     : static_cast<uint32_t>(rng() % blocks);
        ++info->block_records[b];
        ++info->pairs;
        return files[b].Append(r);
      }));
  for (BlockFileWriter& f : files) {
    SG_RETURN_IF_ERROR(f.Close());
    info->block_crcs.push_back(f.crc());
  }
  std::string manifest = fmt::format(
      "{}\nstamp {}\nvocab {}\npairs {}\ncompression {}\ntiles {}\nblocks {}\n", kManifestMagic,
      stamp, vocab, info->pairs, info->compressed ? "zstd" : "none", parts, blocks);
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
                       size_t block_bytes, BlockLayout layout, BlockCompression compression,
                       BlockStreamInfo* info) {
  const uint32_t vocab = ranked.size();
  *info = BlockStreamInfo();
  info->dir = dir;
  const std::string stamp = StoreStamp(store);
  std::string have_stamp;
  BlockStreamInfo existing;
  // Reused only when built for this store and cut, with blocks that fit this
  // run's budget (random routing makes blocks differ from the target a little).
  // Tiles: the layout asked for, with rounds (1/P of the pairs) that fit,
  // and no fewer parts than the budget would choose now; a stream too large
  // for tiles is random blocks, as it would be built.
  const auto fits = [&](const BlockStreamInfo& b) {
    const uint64_t limit = block_bytes + block_bytes / 4;
    const uint64_t bytes = b.pairs * sizeof(PairRecord32);
    const uint32_t parts = layout == BlockLayout::kTiles ? ChooseTileParts(bytes, block_bytes) : 0;
    if (parts > 0) return b.tile_parts >= parts && bytes / b.tile_parts <= limit;
    uint64_t largest = 0;
    for (uint64_t n : b.block_records) largest = std::max(largest, n);
    return b.tile_parts == 0 && largest * sizeof(PairRecord32) <= limit;
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
  const Status s =
      BuildBlockStream(store, dir, ranked, block_bytes, layout, compression, stamp, info);
  if (!s.ok()) {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  return s;
}

}  // namespace streamglove
