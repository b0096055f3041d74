#include "train/checkpoint.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "util/coding.h"
#include "util/crc32.h"
#include "util/file.h"

namespace streamglove {

namespace {

constexpr char kCheckpointMagic[8] = {'S', 'G', 'C', 'K', 'P', 'T', '0', '2'};
constexpr char kOldCheckpointMagic[8] = {'S', 'G', 'C', 'K', 'P', 'T', '0', '1'};
constexpr size_t kHeaderBytes = sizeof(kCheckpointMagic) + 4 * sizeof(uint64_t);
constexpr size_t kTrailerBytes = sizeof(uint64_t);  // the CRC-32 of everything before it

// The arrays are written as the floats lie in memory: the format is
// little-endian, so only little-endian hosts can write or read it.
static_assert(std::endian::native == std::endian::little, "checkpoints are little-endian");

}  // namespace

Status SaveCheckpoint(const std::string& path, uint32_t vocab, uint32_t dim, uint32_t epochs_done,
                      uint64_t options_hash, const std::vector<const LargeArray<float>*>& arrays) {
  AtomicFileWriter out;
  SG_RETURN_IF_ERROR(out.Open(path));
  std::string header(kCheckpointMagic, sizeof(kCheckpointMagic));
  for (uint64_t v : {uint64_t{vocab}, uint64_t{dim}, uint64_t{epochs_done}, options_hash})
    PutFixed64(&header, v);
  SG_RETURN_IF_ERROR(out.Append(header));
  uint32_t crc = ExtendCrc32(0, header.data(), header.size());
  for (const LargeArray<float>* a : arrays) {
    const std::string_view bytes(reinterpret_cast<const char*>(a->data()),
                                 a->size() * sizeof(float));
    crc = ExtendCrc32(crc, bytes.data(), bytes.size());
    SG_RETURN_IF_ERROR(out.Append(bytes));
  }
  std::string trailer;
  PutFixed64(&trailer, crc);  // CRC-32 (zlib's), in 8 bytes
  SG_RETURN_IF_ERROR(out.Append(trailer));
  return out.Commit();
}

Status LoadCheckpoint(const std::string& path, uint32_t vocab, uint32_t dim, uint64_t options_hash,
                      const std::vector<LargeArray<float>*>& arrays, uint32_t* epochs_done) {
  SequentialFile in;
  SG_RETURN_IF_ERROR(in.Open(path));
  std::error_code ec;
  const uint64_t file_bytes = std::filesystem::file_size(path, ec);
  if (ec) return Status::IOError(fmt::format("{}: {}", path, ec.message()));
  auto read_exact = [&](void* to, size_t n) -> Status {
    char* p = static_cast<char*>(to);
    while (n > 0) {
      size_t got = 0;
      SG_RETURN_IF_ERROR(in.Read(p, n, &got));
      if (got == 0)
        return Status::Corruption(
            fmt::format("{}: byte {}: truncated checkpoint", path, in.position()));
      p += got;
      n -= got;
    }
    return Status::OK();
  };
  unsigned char header[kHeaderBytes];
  SG_RETURN_IF_ERROR(read_exact(header, sizeof(header)));
  if (std::memcmp(header, kOldCheckpointMagic, sizeof(kOldCheckpointMagic)) == 0) {
    return Status::InvalidArgument(
        fmt::format("{}: a checkpoint of an older streamglove (format 01, no checksum): train "
                    "again without --resume",
                    path));
  }
  if (std::memcmp(header, kCheckpointMagic, sizeof(kCheckpointMagic)) != 0) {
    return Status::Corruption(fmt::format("{}: byte 0: not a streamglove checkpoint", path));
  }
  if (file_bytes < kHeaderBytes + kTrailerBytes) {
    return Status::Corruption(fmt::format("{}: byte {}: truncated checkpoint", path, file_bytes));
  }
  const unsigned char* fields = header + sizeof(kCheckpointMagic);
  const uint64_t file_vocab = DecodeFixed64(fields), file_dim = DecodeFixed64(fields + 8);
  const uint64_t file_epochs = DecodeFixed64(fields + 16), file_hash = DecodeFixed64(fields + 24);
  uint64_t array_bytes = 0;
  for (const LargeArray<float>* a : arrays) array_bytes += a->size() * sizeof(float);
  // The arrays are read straight into place when the file has the run's
  // shape; otherwise it is only checksummed, so that damage reads as damage
  // and an intact checkpoint of another run as that.
  const bool fits = file_vocab == vocab && file_dim == dim &&
                    file_bytes == kHeaderBytes + array_bytes + kTrailerBytes;
  uint32_t crc = ExtendCrc32(0, header, sizeof(header));
  if (fits) {
    for (LargeArray<float>* a : arrays) {
      SG_RETURN_IF_ERROR(read_exact(a->data(), a->size() * sizeof(float)));
      crc = ExtendCrc32(crc, a->data(), a->size() * sizeof(float));
    }
  } else {
    std::vector<char> buffer(size_t{1} << 20);
    for (uint64_t left = file_bytes - kHeaderBytes - kTrailerBytes; left > 0;) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(left, buffer.size()));
      SG_RETURN_IF_ERROR(read_exact(buffer.data(), n));
      crc = ExtendCrc32(crc, buffer.data(), n);
      left -= n;
    }
  }
  unsigned char trailer[kTrailerBytes];
  SG_RETURN_IF_ERROR(read_exact(trailer, sizeof(trailer)));
  if (DecodeFixed64(trailer) != crc) {
    return Status::Corruption(
        fmt::format("{}: checksum mismatch: the checkpoint is damaged", path));
  }
  if (file_vocab != vocab || file_dim != dim) {
    return Status::InvalidArgument(
        fmt::format("{}: checkpoint of {} words x {} dims; this run has {} x {}", path, file_vocab,
                    file_dim, vocab, dim));
  }
  if (!fits || file_hash != options_hash) {  // (another objective keeps another number of arrays)
    return Status::InvalidArgument(
        fmt::format("{}: checkpoint was trained with other hyperparameters", path));
  }
  *epochs_done = static_cast<uint32_t>(file_epochs);
  return Status::OK();
}

}  // namespace streamglove
