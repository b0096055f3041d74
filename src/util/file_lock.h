// FileLock: an exclusive lock on a file, held for the object's lifetime,
// that tells a refused process who holds it.
//
// The lock is flock(2) on the file (created if missing), and the holder's
// pid is written into the file. flock belongs to the open file description,
// so a second FileLock of the same file in the same process is refused too,
// and the kernel drops the lock when its holder dies (kill -9 included): a
// lock left behind by a dead process never blocks the next one.
//
// Thread-safety: a FileLock is not shared between threads; distinct locks
// are independent.
#ifndef STREAMGLOVE_UTIL_FILE_LOCK_H_
#define STREAMGLOVE_UTIL_FILE_LOCK_H_

#include <memory>
#include <string>

#include "streamglove/status.h"

namespace streamglove {

class FileLock {
 public:
  // Locks `path`. Busy, "<busy> (pid N)", when another process holds it.
  // With `pid_required` false, a pid that cannot be written (a full disk)
  // is not an error: readers must work there.
  static Status Acquire(const std::string& path, const std::string& busy, bool pid_required,
                        std::unique_ptr<FileLock>* lock);
  // Locks `path`, a file or a folder that exists, without creating it or
  // writing into it (a temporary file or folder that says it is in use);
  // false, *lock null, when it cannot be opened or another holds its lock.
  static bool TryLock(const std::string& path, std::unique_ptr<FileLock>* lock);

  ~FileLock();  // unlocks
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  explicit FileLock(int fd) : fd_(fd) {}
  const int fd_;
};

}  // namespace streamglove

#endif  // STREAMGLOVE_UTIL_FILE_LOCK_H_
