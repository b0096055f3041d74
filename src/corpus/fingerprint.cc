#include "corpus/fingerprint.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <filesystem>

#include <fmt/format.h>

#include "util/file.h"
#include "util/hash.h"

namespace streamglove {

namespace {

constexpr size_t kSampleBytes = size_t{1} << 20;

Status ReadAt(int fd, const std::string& path, uint64_t offset, size_t n, std::string* out) {
  out->resize(n);
  size_t done = 0;
  while (done < n) {
    const ssize_t r = ::pread(fd, out->data() + done, n - done, static_cast<off_t>(offset + done));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return ErrnoStatus(path, errno);
    if (r == 0) break;
    done += static_cast<size_t>(r);
  }
  out->resize(done);
  return Status::OK();
}

}  // namespace

namespace {

// Opens `path`, a regular file, and calls f(fd, size).
template <typename F>
Status WithRegularFile(const std::string& path, F f) {
  // Before opening: opening a FIFO would wait for a writer.
  struct stat before;
  if (::stat(path.c_str(), &before) != 0) return ErrnoStatus(path, errno);
  if (!S_ISREG(before.st_mode)) {
    return Status::InvalidArgument(
        fmt::format("{}: not a regular file (ingest must be able to re-read inputs)", path));
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(path, errno);
  struct stat st;
  Status s;
  if (::fstat(fd, &st) != 0) {
    s = ErrnoStatus(path, errno);
  } else if (!S_ISREG(st.st_mode)) {
    s = Status::InvalidArgument(
        fmt::format("{}: not a regular file (ingest must be able to re-read inputs)", path));
  }
  if (s.ok()) s = f(fd, static_cast<uint64_t>(st.st_size));
  ::close(fd);
  return s;
}

Status FingerprintOpenFile(int fd, const std::string& path, uint64_t size,
                           std::string* fingerprint) {
  std::string head, tail;
  SG_RETURN_IF_ERROR(ReadAt(fd, path, 0, std::min<uint64_t>(size, kSampleBytes), &head));
  SG_RETURN_IF_ERROR(ReadAt(fd, path, size > kSampleBytes ? size - kSampleBytes : 0,
                            std::min<uint64_t>(size, kSampleBytes), &tail));
  *fingerprint = fmt::format("{:016x}{:016x}{:016x}", size, HashBytes(head), HashBytes(tail));
  return Status::OK();
}

}  // namespace

Status FingerprintFile(const std::string& path, std::string* fingerprint) {
  return WithRegularFile(path, [&](int fd, uint64_t size) {
    return FingerprintOpenFile(fd, path, size, fingerprint);
  });
}

Status FingerprintFilePrefix(const std::string& path, uint64_t size, std::string* fingerprint) {
  return WithRegularFile(path, [&](int fd, uint64_t file_size) {
    if (size > file_size) {
      return Status::InvalidArgument(
          fmt::format("{}: {} bytes, fewer than the {} asked for", path, file_size, size));
    }
    return FingerprintOpenFile(fd, path, size, fingerprint);
  });
}

bool FingerprintSize(const std::string& fingerprint, uint64_t* size) {
  if (fingerprint.size() != 48) return false;
  const auto [p, ec] = std::from_chars(fingerprint.data(), fingerprint.data() + 16, *size, 16);
  return ec == std::errc() && p == fingerprint.data() + 16;
}

bool SameHead(const std::string& a, const std::string& b) {
  return a.size() == 48 && b.size() == 48 && a.compare(16, 16, b, 16, 16) == 0;
}

std::string InputRecordPath(const std::string& path) {
  std::error_code ec;
  const std::filesystem::path absolute = std::filesystem::absolute(path, ec);
  return ec ? path : absolute.lexically_normal().string();
}

}  // namespace streamglove
