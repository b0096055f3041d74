#include "corpus/byte_source.h"

#include <cstring>
#include <string_view>

#include <fmt/format.h>
#include <zlib.h>
#include <zstd.h>

#include "util/file.h"

namespace streamglove {

namespace {

constexpr size_t kCompressedBufferBytes = size_t{256} << 10;

enum class Compression { kNone, kZstd, kGzip };

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
  explicit CompressedInput(std::unique_ptr<FileInput> in) : file(std::move(in)), buffer(kCompressedBufferBytes, '\0') {}

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
  explicit ZstdSource(std::unique_ptr<FileInput> in) : in_(std::move(in)), dctx_(ZSTD_createDCtx()) {}
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
        return Status::Corruption(fmt::format("{}: byte {}: corrupt zstd data ({})", in_.file->path(),
                                              file_position(), ZSTD_getErrorName(ret)));
      }
      frame_open_ = ret != 0;
    }
    if (in_.eof && out.pos == 0 && frame_open_) {
      return Status::Corruption(fmt::format("{}: byte {}: truncated zstd frame (file ends inside it)",
                                            in_.file->path(), file_position()));
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
    if (init_status_ != Z_OK) return Status::IOError(fmt::format("{}: zlib init failed", in_.file->path()));
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
        return Status::Corruption(fmt::format("{}: byte {}: corrupt gzip data ({})", in_.file->path(),
                                              file_position(), zs_.msg ? zs_.msg : "inflate failed"));
      }
    }
    const size_t produced = n - zs_.avail_out;
    if (in_.eof && produced == 0 && in_member_) {
      return Status::Corruption(fmt::format("{}: byte {}: truncated gzip stream (file ends inside it)",
                                            in_.file->path(), file_position()));
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

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

Status OpenByteSource(const std::string& path, std::unique_ptr<ByteSource>* source) {
  auto in = std::make_unique<FileInput>();
  SG_RETURN_IF_ERROR(in->Open(path, 4));
  const auto* magic = reinterpret_cast<const unsigned char*>(in->head().data());
  const Compression compression = DetectCompression(magic, in->head().size());
  if (EndsWith(path, ".zst") && compression != Compression::kZstd) {
    return Status::Corruption(fmt::format("{}: byte 0: not zstd data (bad magic bytes)", path));
  }
  if (EndsWith(path, ".gz") && compression != Compression::kGzip) {
    return Status::Corruption(fmt::format("{}: byte 0: not gzip data (bad magic bytes)", path));
  }
  switch (compression) {
    case Compression::kZstd: *source = std::make_unique<ZstdSource>(std::move(in)); break;
    case Compression::kGzip: *source = std::make_unique<GzipSource>(std::move(in)); break;
    case Compression::kNone: *source = std::make_unique<PlainSource>(std::move(in)); break;
  }
  return Status::OK();
}

}  // namespace streamglove
