#include "corpus/fingerprint.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

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

Status FingerprintFile(const std::string& path, std::string* fingerprint) {
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
  std::string head, tail;
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  if (s.ok()) s = ReadAt(fd, path, 0, kSampleBytes, &head);
  if (s.ok())
    s = ReadAt(fd, path, size > kSampleBytes ? size - kSampleBytes : 0, kSampleBytes, &tail);
  ::close(fd);
  SG_RETURN_IF_ERROR(s);
  *fingerprint = fmt::format("{:016x}{:016x}{:016x}", size, HashBytes(head), HashBytes(tail));
  return Status::OK();
}

}  // namespace streamglove
