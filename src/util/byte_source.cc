#include "util/byte_source.h"

#include <bzlib.h>
#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#include <cstring>
#include <string_view>

#include <fmt/format.h>

#include "util/file.h"

namespace streamglove {

namespace {

constexpr size_t kCompressedBufferBytes = size_t{256} << 10;

enum class Compression { kNone, kZstd, kGzip, kXz, kBzip2 };

// Enough leading bytes to tell every format apart (xz's magic is the longest).
constexpr size_t kMagicBytes = 6;

Compression DetectCompression(const unsigned char* magic, size_t n) {
  if (n >= 4 && magic[0] == 0x28 && magic[1] == 0xB5 && magic[2] == 0x2F && magic[3] == 0xFD) {
    return Compression::kZstd;
  }
  // A zstd skippable frame (magic 0x184D2A50..5F, little-endian) may lead a stream.
  if (n >= 4 && (magic[0] & 0xF0) == 0x50 && magic[1] == 0x2A && magic[2] == 0x4D &&
      magic[3] == 0x18) {
    return Compression::kZstd;
  }
  if (n >= 2 && magic[0] == 0x1F && magic[1] == 0x8B) return Compression::kGzip;
  if (n >= 6 && std::memcmp(magic,
                            "\xFD"
                            "7zXZ\0",
                            6) == 0)
    return Compression::kXz;
  // "BZh" and the block size, '1' to '9' (hundreds of kB).
  if (n >= 4 && std::memcmp(magic, "BZh", 3) == 0 && magic[3] >= '1' && magic[3] <= '9') {
    return Compression::kBzip2;
  }
  return Compression::kNone;
}

// Holds the file and the bytes read ahead for detection.
class FileInput {
 public:
  Status Open(const std::string& path, size_t lookahead) {
    SG_RETURN_IF_ERROR(file_.Open(path));
    head_.resize(lookahead);
    size_t filled = 0;
    while (filled < lookahead) {
      size_t got = 0;
      SG_RETURN_IF_ERROR(file_.Read(head_.data() + filled, lookahead - filled, &got));
      if (got == 0) break;
      filled += got;
    }
    head_.resize(filled);
    return Status::OK();
  }

  // Reads, first returning the look-ahead bytes.
  Status Read(char* buf, size_t n, size_t* got) {
    if (head_pos_ < head_.size()) {
      *got = std::min(n, head_.size() - head_pos_);
      std::memcpy(buf, head_.data() + head_pos_, *got);
      head_pos_ += *got;
      return Status::OK();
    }
    return file_.Read(buf, n, got);
  }

  const std::string& head() const { return head_; }
  const std::string& path() const { return file_.path(); }
  uint64_t position() const { return file_.position() - (head_.size() - head_pos_); }

 private:
  SequentialFile file_;
  std::string head_;
  size_t head_pos_ = 0;
};

// The compressed side of a decompressor: the file and a read buffer.
struct CompressedInput {
  explicit CompressedInput(std::unique_ptr<FileInput> in)
      : file(std::move(in)), buffer(kCompressedBufferBytes, '\0') {}

  // Reads the next block into `buffer`; *filled = 0 (and eof) at end of file.
  Status Refill(size_t* filled) {
    *filled = 0;
    if (eof) return Status::OK();
    SG_RETURN_IF_ERROR(file->Read(buffer.data(), buffer.size(), filled));
    eof = *filled == 0;
    return Status::OK();
  }

  std::unique_ptr<FileInput> file;
  std::string buffer;
  bool eof = false;
};

class PlainSource final : public ByteSource {
 public:
  explicit PlainSource(std::unique_ptr<FileInput> in) : in_(std::move(in)) {}
  Status Read(char* buf, size_t n, size_t* got) override { return in_->Read(buf, n, got); }
  uint64_t file_position() const override { return in_->position(); }

 private:
  std::unique_ptr<FileInput> in_;
};

class ZstdSource final : public ByteSource {
 public:
  explicit ZstdSource(std::unique_ptr<FileInput> in)
      : in_(std::move(in)), dctx_(ZSTD_createDCtx()) {}
  ~ZstdSource() override { ZSTD_freeDCtx(dctx_); }

  Status Read(char* buf, size_t n, size_t* got) override {
    ZSTD_outBuffer out{buf, n, 0};
    while (out.pos < out.size) {
      if (input_.pos == input_.size) {
        size_t filled = 0;
        SG_RETURN_IF_ERROR(in_.Refill(&filled));
        if (filled == 0) break;
        input_ = ZSTD_inBuffer{in_.buffer.data(), filled, 0};
      }
      const size_t ret = ZSTD_decompressStream(dctx_, &out, &input_);
      if (ZSTD_isError(ret)) {
        return Status::Corruption(fmt::format("{}: byte {}: corrupt zstd data ({})",
                                              in_.file->path(), file_position(),
                                              ZSTD_getErrorName(ret)));
      }
      frame_open_ = ret != 0;
    }
    if (in_.eof && out.pos == 0 && frame_open_) {
      return Status::Corruption(
          fmt::format("{}: byte {}: truncated zstd frame (file ends inside it)", in_.file->path(),
                      file_position()));
    }
    *got = out.pos;
    return Status::OK();
  }

  uint64_t file_position() const override {
    return in_.file->position() - (input_.size - input_.pos);
  }

 private:
  CompressedInput in_;
  ZSTD_DCtx* dctx_;
  ZSTD_inBuffer input_{nullptr, 0, 0};
  bool frame_open_ = false;  // a frame has started and not yet ended
};

class GzipSource final : public ByteSource {
 public:
  explicit GzipSource(std::unique_ptr<FileInput> in) : in_(std::move(in)) {
    std::memset(&zs_, 0, sizeof(zs_));
    init_status_ = inflateInit2(&zs_, 16 + MAX_WBITS);  // gzip wrapper only
  }
  ~GzipSource() override { inflateEnd(&zs_); }

  Status Read(char* buf, size_t n, size_t* got) override {
    if (init_status_ != Z_OK)
      return Status::IOError(fmt::format("{}: zlib init failed", in_.file->path()));
    n = std::min<size_t>(n, UINT32_MAX);
    zs_.next_out = reinterpret_cast<Bytef*>(buf);
    zs_.avail_out = static_cast<uInt>(n);
    while (zs_.avail_out > 0) {
      if (zs_.avail_in == 0) {
        size_t filled = 0;
        SG_RETURN_IF_ERROR(in_.Refill(&filled));
        if (filled == 0) break;
        zs_.next_in = reinterpret_cast<Bytef*>(in_.buffer.data());
        zs_.avail_in = static_cast<uInt>(filled);
      }
      if (!in_member_) {  // more bytes after a complete member: the next member
        inflateReset(&zs_);
        in_member_ = true;
      }
      const int ret = inflate(&zs_, Z_NO_FLUSH);
      if (ret == Z_STREAM_END) {
        in_member_ = false;
      } else if (ret != Z_OK && ret != Z_BUF_ERROR) {
        return Status::Corruption(fmt::format("{}: byte {}: corrupt gzip data ({})",
                                              in_.file->path(), file_position(),
                                              zs_.msg ? zs_.msg : "inflate failed"));
      }
    }
    const size_t produced = n - zs_.avail_out;
    if (in_.eof && produced == 0 && in_member_) {
      return Status::Corruption(
          fmt::format("{}: byte {}: truncated gzip stream (file ends inside it)", in_.file->path(),
                      file_position()));
    }
    *got = produced;
    return Status::OK();
  }

  uint64_t file_position() const override { return in_.file->position() - zs_.avail_in; }

 private:
  CompressedInput in_;
  z_stream zs_;
  int init_status_;
  bool in_member_ = true;
};

// xz (liblzma), every stream of a concatenation (`cat a.xz b.xz`, pxz/xz -T
// output is one stream of many blocks, also fine).
class XzSource final : public ByteSource {
 public:
  explicit XzSource(std::unique_ptr<FileInput> in) : in_(std::move(in)) {
    init_ = lzma_stream_decoder(&strm_, UINT64_MAX, LZMA_CONCATENATED);
  }
  ~XzSource() override { lzma_end(&strm_); }

  Status Read(char* buf, size_t n, size_t* got) override {
    *got = 0;
    if (init_ != LZMA_OK)
      return Status::IOError(fmt::format("{}: liblzma init failed", in_.file->path()));
    if (ended_) return Status::OK();
    strm_.next_out = reinterpret_cast<uint8_t*>(buf);
    strm_.avail_out = n;
    while (strm_.avail_out > 0) {
      if (strm_.avail_in == 0 && !in_.eof) {
        size_t filled = 0;
        SG_RETURN_IF_ERROR(in_.Refill(&filled));
        strm_.next_in = reinterpret_cast<const uint8_t*>(in_.buffer.data());
        strm_.avail_in = filled;
      }
      // With LZMA_CONCATENATED the decoder only knows the last stream is
      // complete when told the input has ended.
      const lzma_ret ret = lzma_code(&strm_, in_.eof ? LZMA_FINISH : LZMA_RUN);
      if (ret == LZMA_STREAM_END) {
        ended_ = true;
        break;
      }
      if (ret == LZMA_BUF_ERROR && in_.eof) {
        return Status::Corruption(
            fmt::format("{}: byte {}: truncated xz stream (file ends inside it)", in_.file->path(),
                        file_position()));
      }
      if (ret != LZMA_OK) {
        return Status::Corruption(fmt::format("{}: byte {}: corrupt xz data ({})", in_.file->path(),
                                              file_position(), Describe(ret)));
      }
    }
    *got = n - strm_.avail_out;
    return Status::OK();
  }

  uint64_t file_position() const override { return in_.file->position() - strm_.avail_in; }

 private:
  static const char* Describe(lzma_ret ret) {
    switch (ret) {
      case LZMA_FORMAT_ERROR:
        return "not an xz stream";
      case LZMA_OPTIONS_ERROR:
        return "unsupported options";
      case LZMA_DATA_ERROR:
        return "data error";
      case LZMA_MEM_ERROR:
        return "out of memory";
      default:
        return "decoder error";
    }
  }

  CompressedInput in_;
  lzma_stream strm_ = LZMA_STREAM_INIT;
  lzma_ret init_;
  bool ended_ = false;
};

// bzip2 (libbz2); a file may hold several streams back to back, as pbzip2
// and lbzip2 write them.
class Bzip2Source final : public ByteSource {
 public:
  explicit Bzip2Source(std::unique_ptr<FileInput> in) : in_(std::move(in)) {
    std::memset(&strm_, 0, sizeof(strm_));
    init_ = BZ2_bzDecompressInit(&strm_, 0, 0);
  }
  ~Bzip2Source() override { BZ2_bzDecompressEnd(&strm_); }

  Status Read(char* buf, size_t n, size_t* got) override {
    if (init_ != BZ_OK)
      return Status::IOError(fmt::format("{}: libbz2 init failed", in_.file->path()));
    n = std::min<size_t>(n, UINT32_MAX);
    strm_.next_out = buf;
    strm_.avail_out = static_cast<unsigned>(n);
    while (strm_.avail_out > 0) {
      if (strm_.avail_in == 0) {
        size_t filled = 0;
        SG_RETURN_IF_ERROR(in_.Refill(&filled));
        if (filled == 0) break;
        strm_.next_in = in_.buffer.data();
        strm_.avail_in = static_cast<unsigned>(filled);
      }
      if (!in_stream_) {  // more bytes after a complete stream: the next stream
        // libbz2 has no reset: end the decoder and start another on the
        // same buffers.
        const bz_stream at = strm_;
        BZ2_bzDecompressEnd(&strm_);
        std::memset(&strm_, 0, sizeof(strm_));
        init_ = BZ2_bzDecompressInit(&strm_, 0, 0);
        if (init_ != BZ_OK)
          return Status::IOError(fmt::format("{}: libbz2 init failed", in_.file->path()));
        strm_.next_in = at.next_in;
        strm_.avail_in = at.avail_in;
        strm_.next_out = at.next_out;
        strm_.avail_out = at.avail_out;
        in_stream_ = true;
      }
      const int ret = BZ2_bzDecompress(&strm_);
      if (ret == BZ_STREAM_END) {
        in_stream_ = false;
      } else if (ret != BZ_OK) {
        return Status::Corruption(fmt::format("{}: byte {}: corrupt bzip2 data ({})",
                                              in_.file->path(), file_position(), Describe(ret)));
      }
    }
    if (in_.eof && produced(n) == 0 && in_stream_) {
      return Status::Corruption(
          fmt::format("{}: byte {}: truncated bzip2 stream (file ends inside it)", in_.file->path(),
                      file_position()));
    }
    *got = produced(n);
    return Status::OK();
  }

  uint64_t file_position() const override { return in_.file->position() - strm_.avail_in; }

 private:
  size_t produced(size_t n) const { return n - strm_.avail_out; }

  static const char* Describe(int ret) {
    switch (ret) {
      case BZ_DATA_ERROR_MAGIC:
        return "not a bzip2 stream";
      case BZ_DATA_ERROR:
        return "data error";
      case BZ_MEM_ERROR:
        return "out of memory";
      default:
        return "decoder error";
    }
  }

  CompressedInput in_;
  bz_stream strm_;
  int init_;
  bool in_stream_ = true;
};

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

Status OpenByteSource(const std::string& path, std::unique_ptr<ByteSource>* source) {
  auto in = std::make_unique<FileInput>();
  SG_RETURN_IF_ERROR(in->Open(path, kMagicBytes));
  const auto* magic = reinterpret_cast<const unsigned char*>(in->head().data());
  const Compression compression = DetectCompression(magic, in->head().size());
  // A name that promises a compression must hold it: a misnamed or damaged
  // file is not read as plain text.
  static constexpr struct {
    const char* suffix;
    Compression compression;
    const char* name;
  } kSuffixes[] = {{".zst", Compression::kZstd, "zstd"},
                   {".gz", Compression::kGzip, "gzip"},
                   {".xz", Compression::kXz, "xz"},
                   {".bz2", Compression::kBzip2, "bzip2"}};
  for (const auto& s : kSuffixes) {
    if (EndsWith(path, s.suffix) && compression != s.compression) {
      return Status::Corruption(
          fmt::format("{}: byte 0: not {} data (bad magic bytes)", path, s.name));
    }
  }
  switch (compression) {
    case Compression::kZstd:
      *source = std::make_unique<ZstdSource>(std::move(in));
      break;
    case Compression::kGzip:
      *source = std::make_unique<GzipSource>(std::move(in));
      break;
    case Compression::kXz:
      *source = std::make_unique<XzSource>(std::move(in));
      break;
    case Compression::kBzip2:
      *source = std::make_unique<Bzip2Source>(std::move(in));
      break;
    case Compression::kNone:
      *source = std::make_unique<PlainSource>(std::move(in));
      break;
  }
  return Status::OK();
}

}  // namespace streamglove
