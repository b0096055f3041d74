#include "train/checkpoint.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "train/embedding_model.h"
#include "util/coding.h"
#include "util/crc32.h"
#include "util/file.h"
#include "util/hash.h"

namespace streamglove {

namespace {

// Format 03 adds the words hash to 02's four fields; 02 is still read.
constexpr char kCheckpointMagic[8] = {'S', 'G', 'C', 'K', 'P', 'T', '0', '3'};
constexpr char kFormat02Magic[8] = {'S', 'G', 'C', 'K', 'P', 'T', '0', '2'};
constexpr char kOldCheckpointMagic[8] = {'S', 'G', 'C', 'K', 'P', 'T', '0', '1'};
constexpr size_t kMagicBytes = sizeof(kCheckpointMagic);
constexpr size_t kHeaderBytes = kMagicBytes + 5 * sizeof(uint64_t);
constexpr size_t kFormat02HeaderBytes = kMagicBytes + 4 * sizeof(uint64_t);
constexpr size_t kTrailerBytes = sizeof(uint64_t);  // the CRC-32 of everything before it

// The arrays are written as the floats lie in memory: the format is
// little-endian, so only little-endian hosts can write or read it.
static_assert(std::endian::native == std::endian::little, "checkpoints are little-endian");

// Reads a checkpoint front to back: the header, then its arrays' bytes.
class CheckpointReader {
 public:
  Status Open(const std::string& path) {
    path_ = path;
    SG_RETURN_IF_ERROR(in_.Open(path));
    std::error_code ec;
    file_bytes_ = std::filesystem::file_size(path, ec);
    if (ec) return Status::IOError(fmt::format("{}: {}", path, ec.message()));
    SG_RETURN_IF_ERROR(ReadExact(header_, kMagicBytes));
    if (std::memcmp(header_, kOldCheckpointMagic, kMagicBytes) == 0) {
      return Status::InvalidArgument(
          fmt::format("{}: a checkpoint of an older streamglove (format 01, no checksum): train "
                      "again without --resume",
                      path));
    }
    if (std::memcmp(header_, kCheckpointMagic, kMagicBytes) == 0) {
      header_bytes_ = kHeaderBytes;
    } else if (std::memcmp(header_, kFormat02Magic, kMagicBytes) == 0) {
      header_bytes_ = kFormat02HeaderBytes;
    } else {
      return Status::Corruption(fmt::format("{}: byte 0: not a streamglove checkpoint", path));
    }
    if (file_bytes_ < header_bytes_ + kTrailerBytes) {
      return Status::Corruption(
          fmt::format("{}: byte {}: truncated checkpoint", path, file_bytes_));
    }
    SG_RETURN_IF_ERROR(ReadExact(header_ + kMagicBytes, header_bytes_ - kMagicBytes));
    crc_ = ExtendCrc32(0, header_, header_bytes_);
    return Status::OK();
  }
  uint64_t field(int i) const { return DecodeFixed64(header_ + kMagicBytes + 8 * i); }
  uint64_t vocab() const { return field(0); }
  uint64_t dim() const { return field(1); }
  // Whether the rows are the words hashed as `words_hash` (format 02 does
  // not say: yes).
  bool HasWords(uint64_t words_hash) const {
    return header_bytes_ == kFormat02HeaderBytes || field(4) == words_hash;
  }
  uint64_t array_bytes() const { return file_bytes_ - header_bytes_ - kTrailerBytes; }

  // The next n bytes of the arrays, into `to` (checksummed as read).
  Status ReadArrays(void* to, size_t n) {
    SG_RETURN_IF_ERROR(ReadExact(to, n));
    crc_ = ExtendCrc32(crc_, to, n);
    return Status::OK();
  }
  // Reads the rest of the arrays without keeping them.
  Status SkipArrays() {
    std::vector<char> buffer(size_t{1} << 20);
    for (uint64_t left = header_bytes_ + array_bytes() - in_.position(); left > 0;) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(left, buffer.size()));
      SG_RETURN_IF_ERROR(ReadArrays(buffer.data(), n));
      left -= n;
    }
    return Status::OK();
  }
  // After the arrays: the trailer against what was read.
  Status CheckTrailer() {
    unsigned char trailer[kTrailerBytes];
    SG_RETURN_IF_ERROR(ReadExact(trailer, sizeof(trailer)));
    if (DecodeFixed64(trailer) != crc_) {
      return Status::Corruption(
          fmt::format("{}: checksum mismatch: the checkpoint is damaged", path_));
    }
    return Status::OK();
  }

 private:
  Status ReadExact(void* to, size_t n) {
    char* p = static_cast<char*>(to);
    while (n > 0) {
      size_t got = 0;
      SG_RETURN_IF_ERROR(in_.Read(p, n, &got));
      if (got == 0)
        return Status::Corruption(
            fmt::format("{}: byte {}: truncated checkpoint", path_, in_.position()));
      p += got;
      n -= got;
    }
    return Status::OK();
  }

  std::string path_;
  SequentialFile in_;
  uint64_t file_bytes_ = 0;
  size_t header_bytes_ = kHeaderBytes;  // of this file's format
  unsigned char header_[kHeaderBytes];
  uint32_t crc_ = 0;
};

}  // namespace

void WordsHash::Add(std::string_view word) {
  // Each word hashed whole, then chained: "ab","c" and "a","bc" differ.
  hash_ = hash_internal::Mix(hash_ ^ HashBytes(word), 0x9e3779b97f4a7c15ull);
}

Status SaveCheckpoint(const std::string& path, uint32_t vocab, uint32_t dim, uint32_t epochs_done,
                      const CheckpointStamp& stamp,
                      const std::vector<const LargeArray<float>*>& arrays) {
  AtomicFileWriter out;
  SG_RETURN_IF_ERROR(out.Open(path));
  std::string header(kCheckpointMagic, sizeof(kCheckpointMagic));
  for (uint64_t v : {uint64_t{vocab}, uint64_t{dim}, uint64_t{epochs_done}, stamp.options_hash,
                     stamp.words_hash})
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

Status LoadCheckpoint(const std::string& path, uint32_t vocab, uint32_t dim,
                      const CheckpointStamp& stamp, const std::vector<LargeArray<float>*>& arrays,
                      uint32_t* epochs_done) {
  CheckpointReader in;
  SG_RETURN_IF_ERROR(in.Open(path));
  uint64_t array_bytes = 0;
  for (const LargeArray<float>* a : arrays) array_bytes += a->size() * sizeof(float);
  // The arrays are read straight into place when the file has the run's
  // shape; otherwise it is only checksummed, so that damage reads as damage
  // and an intact checkpoint of another run as that.
  const bool fits = in.vocab() == vocab && in.dim() == dim && in.array_bytes() == array_bytes;
  if (fits) {
    for (LargeArray<float>* a : arrays)
      SG_RETURN_IF_ERROR(in.ReadArrays(a->data(), a->size() * sizeof(float)));
  } else {
    SG_RETURN_IF_ERROR(in.SkipArrays());
  }
  SG_RETURN_IF_ERROR(in.CheckTrailer());
  if (in.vocab() != vocab || in.dim() != dim) {
    return Status::InvalidArgument(
        fmt::format("{}: checkpoint of {} words x {} dims; this run has {} x {}", path, in.vocab(),
                    in.dim(), vocab, dim));
  }
  if (!fits || in.field(3) != stamp.options_hash) {  // (another objective: other arrays)
    return Status::InvalidArgument(
        fmt::format("{}: checkpoint was trained with other hyperparameters", path));
  }
  if (!in.HasWords(stamp.words_hash)) {
    return Status::InvalidArgument(
        fmt::format("{}: checkpoint of other words than this run's vocabulary", path));
  }
  *epochs_done = static_cast<uint32_t>(in.field(2));
  return Status::OK();
}

Status LoadCheckpointRows(const std::string& path, uint32_t dim, uint64_t words_hash,
                          const std::vector<uint32_t>& rows,
                          const std::vector<LargeArray<float>*>& arrays,
                          const std::vector<LargeArray<float>*>& whole_arrays) {
  // First the whole file's checksum: no row of a damaged file is copied.
  {
    CheckpointReader check;
    SG_RETURN_IF_ERROR(check.Open(path));
    SG_RETURN_IF_ERROR(check.SkipArrays());
    SG_RETURN_IF_ERROR(check.CheckTrailer());
  }
  CheckpointReader in;
  SG_RETURN_IF_ERROR(in.Open(path));
  const size_t stride = RowStride(dim);
  size_t whole_bytes = 0;
  for (const LargeArray<float>* a : whole_arrays) whole_bytes += a->size() * sizeof(float);
  if (in.dim() != dim || in.vocab() != rows.size() ||
      in.array_bytes() != arrays.size() * rows.size() * stride * sizeof(float) + whole_bytes) {
    return Status::InvalidArgument(fmt::format(
        "{}: a checkpoint of {} words x {} dims ({} bytes of arrays); this run wants {} words x {} "
        "dims in {} arrays{} (the same --dim, --objective and subwords)",
        path, in.vocab(), in.dim(), in.array_bytes(), rows.size(), dim, arrays.size(),
        whole_bytes > 0 ? fmt::format(" and {} bytes of n-gram rows", whole_bytes) : ""));
  }
  if (!in.HasWords(words_hash)) {
    return Status::InvalidArgument(fmt::format(
        "{}: its rows are other words than those of the vectors file beside it (a checkpoint of "
        "another run, written since that file?): warm-start from a vectors file and the "
        "checkpoint its run wrote",
        path));
  }
  constexpr size_t kRowsPerRead = 4096;
  std::vector<float> buffer(kRowsPerRead * stride);
  for (LargeArray<float>* a : arrays) {
    for (size_t first = 0; first < rows.size(); first += kRowsPerRead) {
      const size_t n = std::min(kRowsPerRead, rows.size() - first);
      SG_RETURN_IF_ERROR(in.ReadArrays(buffer.data(), n * stride * sizeof(float)));
      for (size_t i = 0; i < n; ++i) {
        const uint32_t to = rows[first + i];
        if (to == kNotCopied) continue;
        std::copy_n(buffer.data() + i * stride, stride, a->data() + size_t{to} * stride);
      }
    }
  }
  for (LargeArray<float>* a : whole_arrays)
    SG_RETURN_IF_ERROR(in.ReadArrays(a->data(), a->size() * sizeof(float)));
  return in.CheckTrailer();
}

}  // namespace streamglove
