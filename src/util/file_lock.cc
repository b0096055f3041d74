#include "util/file_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>

#include <fmt/format.h>

#include "util/file.h"

namespace streamglove {

namespace {

// The pid a holder wrote into the lock file, or "unknown".
std::string HolderPid(int fd) {
  char buf[32];
  const ssize_t n = ::pread(fd, buf, sizeof(buf), 0);
  long pid = 0;
  if (n > 0 && std::from_chars(buf, buf + n, pid).ec == std::errc() && pid > 0) {
    return std::to_string(pid);
  }
  return "unknown";
}

}  // namespace

Status FileLock::Acquire(const std::string& path, const std::string& busy, bool pid_required,
                         std::unique_ptr<FileLock>* lock) {
  lock->reset();
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoStatus(path, errno);
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    const Status s = err == EWOULDBLOCK
                         ? Status::Busy(fmt::format("{} (pid {})", busy, HolderPid(fd)))
                         : ErrnoStatus(path, err);
    ::close(fd);
    return s;
  }
  const std::string pid = fmt::format("{}\n", ::getpid());
  if ((::ftruncate(fd, 0) != 0 ||
       ::pwrite(fd, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) &&
      pid_required) {
    const Status s = ErrnoStatus(path, errno);
    ::close(fd);
    return s;
  }
  lock->reset(new FileLock(fd));
  return Status::OK();
}

bool FileLock::TryLock(const std::string& path, std::unique_ptr<FileLock>* lock) {
  lock->reset();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd);
    return false;
  }
  lock->reset(new FileLock(fd));
  return true;
}

FileLock::~FileLock() { ::close(fd_); }

}  // namespace streamglove
