#include "util/file.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include <fmt/format.h>

namespace streamglove {

MappedFile::~MappedFile() {
  if (size_ > 0) ::munmap(const_cast<char*>(data_), size_);
}

Status MappedFile::Open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(path, errno);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return ErrnoStatus(path, err);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return Status::InvalidArgument(fmt::format("{}: not a regular file", path));
  }
  size_ = static_cast<size_t>(st.st_size);
  if (size_ > 0) {
    void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      const int err = errno;
      ::close(fd);
      size_ = 0;
      return ErrnoStatus(path, err);
    }
    ::madvise(p, size_, MADV_SEQUENTIAL);
    data_ = static_cast<const char*>(p);
  }
  ::close(fd);
  return Status::OK();
}

Status ErrnoStatus(const std::string& path, int err) {
  std::string msg = fmt::format("{}: {}", path, std::strerror(err));
  return err == ENOENT ? Status::NotFound(std::move(msg)) : Status::IOError(std::move(msg));
}

SequentialFile::~SequentialFile() {
  if (owns_fd_ && fd_ >= 0) ::close(fd_);
}

Status SequentialFile::Open(const std::string& path) {
  path_ = path;
  if (path == "-") {
    fd_ = STDIN_FILENO;
    owns_fd_ = false;
    path_ = "<stdin>";
  } else {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) return ErrnoStatus(path, errno);
    owns_fd_ = true;
  }
  struct stat st;
  if (::fstat(fd_, &st) != 0) return ErrnoStatus(path_, errno);
  if (S_ISDIR(st.st_mode)) return Status::InvalidArgument(fmt::format("{}: is a directory", path_));
  if (S_ISREG(st.st_mode)) {
    size_ = static_cast<uint64_t>(st.st_size);
    ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
  }
  return Status::OK();
}

Status SequentialFile::SeekTo(uint64_t offset) {
  if (::lseek(fd_, static_cast<off_t>(offset), SEEK_SET) < 0) {
    return Status::IOError(
        fmt::format("{}: seeking to byte {}: {}", path_, offset, std::strerror(errno)));
  }
  position_ = offset;
  return Status::OK();
}

Status SequentialFile::Read(char* buf, size_t n, size_t* got) {
  for (;;) {
    const ssize_t r = ::read(fd_, buf, n);
    if (r >= 0) {
      *got = static_cast<size_t>(r);
      position_ += static_cast<uint64_t>(r);
      return Status::OK();
    }
    if (errno != EINTR) {
      return Status::IOError(
          fmt::format("{}: byte {}: {}", path_, position_, std::strerror(errno)));
    }
  }
}

bool PathExists(const std::string& path) {
  std::error_code ec;
  return std::filesystem::exists(path, ec);
}

DirectoryBytes MeasureDirectory(const std::string& dir) {
  namespace fs = std::filesystem;
  DirectoryBytes bytes;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code file_ec;
    if (!it->is_regular_file(file_ec)) continue;
    const uintmax_t size = it->file_size(file_ec);
    if (file_ec) continue;
    (it.depth() == 0 ? bytes.top_level : bytes.subfolders) += size;
  }
  return bytes;
}

Status ReadFileToString(const std::string& path, std::string* contents) {
  SequentialFile file;
  SG_RETURN_IF_ERROR(file.Open(path));
  contents->clear();
  std::string block(size_t{1} << 20, '\0');
  for (;;) {
    size_t got = 0;
    SG_RETURN_IF_ERROR(file.Read(block.data(), block.size(), &got));
    if (got == 0) return Status::OK();
    contents->append(block.data(), got);
  }
}

WritableFile::~WritableFile() {
  if (fd_ >= 0 && !is_stdout_) ::close(fd_);
}

Status WritableFile::Open(const std::string& path, size_t buffer_bytes) {
  path_ = path;
  buffer_bytes_ = buffer_bytes;
  buffer_.reserve(buffer_bytes_);
  if (path == "-") {
    is_stdout_ = true;
    path_ = "<stdout>";
    fd_ = STDOUT_FILENO;
    return Status::OK();
  }
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) return ErrnoStatus(path, errno);
  return Status::OK();
}

Status WritableFile::Append(std::string_view data) {
  if (buffer_.size() + data.size() < buffer_bytes_) {
    buffer_.append(data);
    return Status::OK();
  }
  SG_RETURN_IF_ERROR(FlushBuffer());
  // A write of a buffer or more goes out as it is: copied into the buffer,
  // a checkpoint's arrays would double their memory (a --memory overrun
  // tests/reliability/memory_limit_test.sh caught).
  if (data.size() >= buffer_bytes_) return WriteAll(data.data(), data.size());
  buffer_.append(data);
  return Status::OK();
}

Status WritableFile::FlushBuffer() {
  SG_RETURN_IF_ERROR(WriteAll(buffer_.data(), buffer_.size()));
  buffer_.clear();
  return Status::OK();
}

Status WritableFile::WriteAll(const char* p, size_t left) {
  while (left > 0) {
    const ssize_t w = ::write(fd_, p, left);
    if (w < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus(path_, errno);
    }
    p += w;
    left -= static_cast<size_t>(w);
  }
  return Status::OK();
}

Status WritableFile::Close(bool sync) {
  Status s = FlushBuffer();
  if (s.ok() && sync && !is_stdout_ && ::fsync(fd_) != 0) s = ErrnoStatus(path_, errno);
  if (!is_stdout_ && fd_ >= 0 && ::close(fd_) != 0 && s.ok()) s = ErrnoStatus(path_, errno);
  fd_ = -1;
  return s;
}

namespace {

// Whether the pid that `name` starts with (then its end or '-') is gone.
// EPERM is a live process of another user.
bool OwnerIsDead(std::string_view name) {
  pid_t pid = 0;
  const auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), pid);
  if (ec != std::errc() || pid <= 0 || (end != name.data() + name.size() && *end != '-'))
    return false;
  return ::kill(pid, 0) != 0 && errno == ESRCH;
}

}  // namespace

void RemoveDeadLeftovers(const std::string& dir, const std::string& prefix) {
  namespace fs = std::filesystem;
  std::vector<fs::path> dead;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() > prefix.size() && name.compare(0, prefix.size(), prefix) == 0 &&
        OwnerIsDead(std::string_view(name).substr(prefix.size()))) {
      dead.push_back(it->path());
    }
  }
  for (const fs::path& path : dead) {
    std::unique_ptr<FileLock> lock;
    // Not locked: a live holder whose pid this namespace does not see.
    if (FileLock::TryLock(path.string(), &lock)) fs::remove_all(path, ec);
  }
}

AtomicFileWriter::~AtomicFileWriter() {
  if (!committed_ && !temp_path_.empty()) ::unlink(temp_path_.c_str());
}

Status AtomicFileWriter::Open(const std::string& path) {
  path_ = path;
  if (path == "-") return file_.Open(path);
  const std::filesystem::path p(path);
  const std::string dir = p.has_parent_path() ? p.parent_path().string() : ".";
  RemoveDeadLeftovers(dir, p.filename().string() + ".tmp-");
  temp_path_ = fmt::format("{}.tmp-{}", path, ::getpid());
  SG_RETURN_IF_ERROR(file_.Open(temp_path_));
  FileLock::TryLock(temp_path_, &lock_);
  return Status::OK();
}

Status AtomicFileWriter::Commit() {
  SG_RETURN_IF_ERROR(file_.Close(/*sync=*/true));
  if (temp_path_.empty()) return Status::OK();
  if (::rename(temp_path_.c_str(), path_.c_str()) != 0) return ErrnoStatus(path_, errno);
  committed_ = true;
  lock_.reset();
  return Status::OK();
}

TempDir::~TempDir() {
  if (!path_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
}

std::string TempDir::ResolveParent(const std::string& parent) {
  if (!parent.empty()) return parent;
  const char* env = std::getenv("TMPDIR");
  return (env != nullptr && *env != '\0') ? env : "/tmp";
}

Status TempDir::Create(const std::string& parent, const std::string& prefix) {
  const std::string base = ResolveParent(parent);
  std::string templ = fmt::format("{}/{}{}-XXXXXX", base, prefix, ::getpid());
  if (::mkdtemp(templ.data()) == nullptr) return ErrnoStatus(base, errno);
  path_ = templ;
  FileLock::TryLock(path_, &lock_);
  return Status::OK();
}

}  // namespace streamglove
