#include "train/block_stream.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <random>
#include <sstream>

#include <fmt/format.h>
#include <tbb/parallel_for.h>
#include <unistd.h>
#include <zstd.h>

#include "corpus/byte_source.h"
#include "util/file.h"
#include "util/hash.h"

namespace streamglove {

namespace {

constexpr uint32_t kMaxBlocks = 1024;
constexpr size_t kBlockWriteBufferBytes = size_t{32} << 10;
constexpr const char* kManifestMagic = "streamglove-blocks 2";
constexpr int kBlockZstdLevel = 1;  // 12-byte records shrink to ~45% at ~120 MB/s per core

std::string RawBlockPath(const std::string& dir, size_t i) { return fmt::format("{}/block-{:05d}", dir, i); }

// The page cache this machine could give the stream (MemAvailable), or 0.
uint64_t AvailableMemoryBytes() {
  std::string meminfo;
  if (!ReadFileToString("/proc/meminfo", &meminfo).ok()) return 0;
  const size_t at = meminfo.find("MemAvailable:");
  if (at == std::string::npos) return 0;
  return std::strtoull(meminfo.c_str() + at + 13, nullptr, 10) * 1024;
}

// Compresses `from` into `to` (one zstd frame), streaming: memory is the
// compressor's state and two 1 MiB buffers.
Status CompressFile(const std::string& from, const std::string& to) {
  SequentialFile in;
  WritableFile out;
  SG_RETURN_IF_ERROR(in.Open(from));
  SG_RETURN_IF_ERROR(out.Open(to));
  std::unique_ptr<ZSTD_CCtx, size_t (*)(ZSTD_CCtx*)> cctx(ZSTD_createCCtx(), ZSTD_freeCCtx);
  ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_compressionLevel, kBlockZstdLevel);
  std::string input(size_t{1} << 20, '\0'), output(ZSTD_CStreamOutSize(), '\0');
  for (;;) {
    size_t got = 0;
    SG_RETURN_IF_ERROR(in.Read(input.data(), input.size(), &got));
    const ZSTD_EndDirective mode = got == 0 ? ZSTD_e_end : ZSTD_e_continue;
    ZSTD_inBuffer src{input.data(), got, 0};
    for (;;) {
      ZSTD_outBuffer dst{output.data(), output.size(), 0};
      const size_t left = ZSTD_compressStream2(cctx.get(), &dst, &src, mode);
      if (ZSTD_isError(left)) return Status::IOError(fmt::format("{}: {}", to, ZSTD_getErrorName(left)));
      SG_RETURN_IF_ERROR(out.Append(std::string_view(output.data(), dst.pos)));
      if (mode == ZSTD_e_end ? left == 0 : src.pos == src.size) break;
    }
    if (got == 0) break;
  }
  return out.Close(/*sync=*/false);
}

Status ReadManifest(const std::string& dir, std::string* stamp, BlockStreamInfo* info) {
  const std::string path = dir + "/MANIFEST";
  if (!std::filesystem::exists(path)) return Status::NotFound(path);
  std::string all;
  SG_RETURN_IF_ERROR(ReadFileToString(path, &all));
  std::istringstream in(all);
  std::string magic, key;
  uint64_t blocks = 0;
  std::getline(in, magic);
  if (magic != kManifestMagic) return Status::Corruption(fmt::format("{}: not a block stream manifest", path));
  std::string compression;
  in >> key >> *stamp >> key >> info->vocab >> key >> info->pairs >> key >> compression >> key >> blocks;
  info->compressed = compression == "zstd";
  info->block_records.resize(blocks);
  for (uint64_t& n : info->block_records) in >> n;
  if (!in) return Status::Corruption(fmt::format("{}: truncated manifest", path));
  return Status::OK();
}

}  // namespace

std::string BlockPath(const BlockStreamInfo& info, size_t i) {
  return RawBlockPath(info.dir, i) + (info.compressed ? ".zst" : "");
}

std::string StoreStamp(Store* store) {
  std::vector<InputRecord> inputs;
  IngestProgress progress;
  bool partial = false;
  std::string key = fmt::format("v{} w{} ", store->vocab().size(), store->config().window);
  if (store->ListInputs(&inputs).ok()) {
    std::sort(inputs.begin(), inputs.end(), [](auto& a, auto& b) { return a.fingerprint < b.fingerprint; });
    for (const InputRecord& r : inputs) key += r.fingerprint + " ";
  }
  if (store->GetProgress(&progress, &partial).ok() && partial) {
    key += fmt::format("partial {} {}", progress.fingerprint, progress.offset);
  }
  return fmt::format("{:016x}", HashBytes(key));
}

Status OpenBlockStream(Store* store, const std::string& dir, uint32_t vocab, size_t block_bytes,
                       BlockCompression compression, BlockStreamInfo* info) {
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
    return compression == BlockCompression::kAuto || b.compressed == (compression == BlockCompression::kZstd);
  };
  if (ReadManifest(dir, &have_stamp, &existing).ok() && have_stamp == stamp && existing.vocab == vocab &&
      fits(existing) && compression_ok(existing)) {
    existing.dir = dir;
    *info = existing;
    return Status::OK();
  }

  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  if (!std::filesystem::create_directories(dir, ec) && ec) return Status::IOError(fmt::format("{}: {}", dir, ec.message()));
  // About 3 bytes of store per pair: this overestimates the pairs a little,
  // so blocks come out no larger than asked.
  const uint64_t estimated_pairs = std::max<uint64_t>(1, store->SizeOnDisk() / 3);
  const auto blocks = static_cast<uint32_t>(
      std::clamp<uint64_t>(estimated_pairs * sizeof(PairRecord32) / std::max<size_t>(block_bytes, 1), 1, kMaxBlocks));
  std::vector<WritableFile> files(blocks);
  for (uint32_t b = 0; b < blocks; ++b) SG_RETURN_IF_ERROR(files[b].Open(RawBlockPath(dir, b), kBlockWriteBufferBytes));
  info->block_records.assign(blocks, 0);
  // Deterministic for a given store, so a rebuilt stream is the same stream.
  std::mt19937_64 rng(std::hash<std::string>()(stamp) ^ vocab);
  const double scale = static_cast<double>(store->config().scale);
  SG_RETURN_IF_ERROR(store->ForEachPair([&](uint32_t row, uint32_t col, uint64_t value) {
    if (row >= vocab || col >= vocab) return Status::OK();
    const PairRecord32 r{row, col, static_cast<float>(static_cast<double>(value) / scale)};
    const uint32_t b = static_cast<uint32_t>(rng() % blocks);
    ++info->block_records[b];
    ++info->pairs;
    return files[b].Append(std::string_view(reinterpret_cast<const char*>(&r), sizeof(r)));
  }));
  for (WritableFile& f : files) SG_RETURN_IF_ERROR(f.Close(/*sync=*/false));
  // Compression pays when the page cache cannot hold the stream, so that
  // every epoch reads it from the disk: half the bytes to read (and to store).
  const uint64_t raw_bytes = info->pairs * sizeof(PairRecord32);
  info->compressed = compression == BlockCompression::kZstd ||
                     (compression == BlockCompression::kAuto && raw_bytes > AvailableMemoryBytes() / 2);
  if (info->compressed) {
    std::vector<Status> results(blocks);
    tbb::parallel_for(uint32_t{0}, blocks, [&](uint32_t b) {
      results[b] = CompressFile(RawBlockPath(dir, b), BlockPath(*info, b));
      if (results[b].ok() && ::unlink(RawBlockPath(dir, b).c_str()) != 0) {
        results[b] = ErrnoStatus(RawBlockPath(dir, b), errno);
      }
    });
    for (Status& r : results) SG_RETURN_IF_ERROR(r);
  }
  std::string manifest =
      fmt::format("{}\nstamp {}\nvocab {}\npairs {}\ncompression {}\nblocks {}\n", kManifestMagic, stamp, vocab,
                  info->pairs, info->compressed ? "zstd" : "none", blocks);
  for (uint64_t n : info->block_records) manifest += fmt::format("{}\n", n);
  AtomicFileWriter out;
  SG_RETURN_IF_ERROR(out.Open(dir + "/MANIFEST"));
  SG_RETURN_IF_ERROR(out.Append(manifest));
  SG_RETURN_IF_ERROR(out.Commit());
  info->vocab = vocab;
  info->built = true;
  return Status::OK();
}

BlockReader::BlockReader(const BlockStreamInfo* info, std::vector<uint32_t> order,
                         std::vector<uint64_t> shuffle_seeds, const PairTransform* transform)
    : info_(info), order_(std::move(order)), shuffle_seeds_(std::move(shuffle_seeds)), transform_(transform) {
  prefetch_ = std::thread([this] { Prefetch(); });
}

BlockReader::~BlockReader() {
  if (prefetch_.joinable()) prefetch_.join();
}

void BlockReader::Prefetch() {
  if (next_ >= order_.size()) return;
  const uint32_t b = order_[next_];
  const size_t n = info_->block_records[b];
  // Read the 12-byte records into the front of the 16-byte array and widen
  // them in place, last first: no second buffer.
  ahead_.resize(n);
  const std::string path = BlockPath(*info_, b);
  // Raw blocks are read as they are (their first bytes could pass for a
  // compression magic); compressed ones through a zstd ByteSource.
  std::unique_ptr<ByteSource> zstd;
  SequentialFile plain;
  ahead_status_ = info_->compressed ? OpenByteSource(path, &zstd) : plain.Open(path);
  char* p = reinterpret_cast<char*>(ahead_.data());
  size_t left = n * sizeof(PairRecord32);
  while (ahead_status_.ok() && left > 0) {
    size_t got = 0;
    ahead_status_ = zstd ? zstd->Read(p, left, &got) : plain.Read(p, left, &got);
    if (ahead_status_.ok() && got == 0) {
      ahead_status_ = Status::Corruption(fmt::format("{}: block shorter than its manifest says", path));
    }
    p += got;
    left -= got;
  }
  if (!ahead_status_.ok()) return;
  const char* raw = reinterpret_cast<const char*>(ahead_.data());
  for (size_t i = n; i-- > 0;) {
    PairRecord32 r;
    std::memcpy(&r, raw + i * sizeof(PairRecord32), sizeof(r));  // before its slot is overwritten
    ahead_[i] = (*transform_)(r);
  }
  std::mt19937_64 rng(shuffle_seeds_[next_]);
  std::shuffle(ahead_.begin(), ahead_.end(), rng);
}

Status BlockReader::Next(std::vector<TrainingPair>* pairs, bool* done) {
  if (prefetch_.joinable()) prefetch_.join();
  *done = next_ >= order_.size();
  if (*done) return Status::OK();
  SG_RETURN_IF_ERROR(ahead_status_);
  pairs->swap(ahead_);
  ++next_;
  prefetch_ = std::thread([this] { Prefetch(); });
  return Status::OK();
}

}  // namespace streamglove
