// File I/O behind small classes, so pipeline stages never touch descriptors.
//
// Thread-safety: none of these objects may be used from two threads at once;
// distinct objects are independent.
#ifndef STREAMGLOVE_UTIL_FILE_H_
#define STREAMGLOVE_UTIL_FILE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "streamglove/status.h"
#include "util/file_lock.h"

namespace streamglove {

// "path: <strerror(err)>" as an IOError (NotFound for ENOENT).
Status ErrnoStatus(const std::string& path, int err);

// Reads a file (or standard input for "-") front to back with read(2).
class SequentialFile {
 public:
  SequentialFile() = default;
  ~SequentialFile();
  SequentialFile(const SequentialFile&) = delete;
  SequentialFile& operator=(const SequentialFile&) = delete;

  // Opens `path`; "-" is standard input (not closed on destruction).
  Status Open(const std::string& path);

  // Reads up to `n` bytes; *got = 0 only at end of file.
  Status Read(char* buf, size_t n, size_t* got);
  // Moves to byte `offset` of a regular file; position() becomes `offset`.
  Status SeekTo(uint64_t offset);

  // Bytes read so far (the position, after a SeekTo).
  uint64_t position() const { return position_; }
  // The file's size when it is a regular file, else 0 (pipes, stdin).
  uint64_t size() const { return size_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int fd_ = -1;
  bool owns_fd_ = false;
  uint64_t position_ = 0;
  uint64_t size_ = 0;
};

// Reads the whole of `path` into *contents (for small files: manifests,
// vocabularies).
Status ReadFileToString(const std::string& path, std::string* contents);

// Whether `path` names anything. Never throws: a path that cannot be
// examined (no permission on a parent) reads as absent, and the open that
// follows names the real error.
bool PathExists(const std::string& path);

// Bytes of the regular files in a directory: those directly in it, and those
// in its subfolders at any depth.
struct DirectoryBytes {
  uint64_t top_level = 0;
  uint64_t subfolders = 0;
};
// Files that vanish during the walk (compactions) are not counted; a missing
// `dir` is all 0.
DirectoryBytes MeasureDirectory(const std::string& dir);

// Buffered writes to a new file (or standard output for "-"); every error
// names the file, so a full disk reads "runs/0003: No space left on device".
class WritableFile {
 public:
  WritableFile() = default;
  ~WritableFile();
  WritableFile(const WritableFile&) = delete;
  WritableFile& operator=(const WritableFile&) = delete;

  // Creates or truncates `path`; writes go out in pieces of `buffer_bytes`.
  Status Open(const std::string& path, size_t buffer_bytes = size_t{1} << 20);
  Status Append(std::string_view data);
  // Writes out the buffered bytes (for logs read while written).
  Status Flush() { return FlushBuffer(); }
  // Writes out buffered bytes; with `sync`, also fsyncs. Then closes.
  Status Close(bool sync);
  const std::string& path() const { return path_; }

 private:
  Status FlushBuffer();
  // Writes n bytes at p, retrying short writes.
  Status WriteAll(const char* p, size_t n);

  std::string path_;
  int fd_ = -1;
  bool is_stdout_ = false;
  size_t buffer_bytes_ = size_t{1} << 20;
  std::string buffer_;
};

// Temporary files and folders carry their creator's pid in their name
// ("<path>.tmp-<pid>", "<prefix><pid>-XXXXXX") and their creator holds a
// flock on them, so that a later run can tell what a killed process left
// from what a live one uses. Removes the entries of `dir` named `prefix`, a
// pid, then the name's end or '-', whose process is gone and whose lock
// nobody holds (a process of another pid namespace may share the folder).
// Best effort: what cannot be removed is left to a later run.
void RemoveDeadLeftovers(const std::string& dir, const std::string& prefix);

// Writes a file that appears under its final name only when complete:
// bytes go to "<path>.tmp-<pid>", and Commit() flushes, fsyncs and renames it.
// Destroying an uncommitted writer removes the temporary file, so a failed or
// interrupted run never leaves a truncated output behind; Open() removes
// those of killed writers of `path` (RemoveDeadLeftovers). "-" writes to
// standard output directly.
class AtomicFileWriter {
 public:
  AtomicFileWriter() = default;
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  Status Open(const std::string& path);
  Status Append(std::string_view data) { return file_.Append(data); }
  // REQUIRES: Open() succeeded; no Append() after.
  Status Commit();

 private:
  std::string path_;
  std::string temp_path_;           // empty when writing to standard output
  std::unique_ptr<FileLock> lock_;  // temp_path_'s, held until it is renamed
  bool committed_ = false;
  WritableFile file_;
};

// A whole regular file mapped read-only into memory (for large inputs that
// are parsed in place, such as vectors files).
class MappedFile {
 public:
  MappedFile() = default;
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  Status Open(const std::string& path);
  std::string_view data() const { return {data_, size_}; }

 private:
  const char* data_ = nullptr;
  size_t size_ = 0;
};

// A private directory created under `parent` (or $TMPDIR, else /tmp, when
// empty), named "<prefix><pid>-XXXXXX" and locked while it lives (see
// RemoveDeadLeftovers), and removed with its files on destruction.
class TempDir {
 public:
  TempDir() = default;
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  Status Create(const std::string& parent, const std::string& prefix);
  const std::string& path() const { return path_; }
  // The folder Create(parent, ...) makes it in: `parent`, or the default.
  static std::string ResolveParent(const std::string& parent);

 private:
  std::string path_;
  std::unique_ptr<FileLock> lock_;  // path_'s, released after it is removed
};

}  // namespace streamglove

#endif  // STREAMGLOVE_UTIL_FILE_H_
