// FirstError: keeps the first error any of many threads reports, so parallel
// work stops early and the error that caused the stop is the one returned.
//
// Thread-safety: every method may be called from any thread.
#ifndef STREAMGLOVE_UTIL_FIRST_ERROR_H_
#define STREAMGLOVE_UTIL_FIRST_ERROR_H_

#include <atomic>

#include "streamglove/status.h"
#include "util/mutex.h"

namespace streamglove {

class FirstError {
 public:
  // Records `s` unless an error is already recorded; OK statuses are ignored.
  void Set(Status s) {
    if (s.ok()) return;
    MutexLock lock(&mu_);
    if (status_.ok()) status_ = std::move(s);
    failed_ = true;
  }
  // Cheap check for the hot path.
  bool failed() const { return failed_.load(std::memory_order_relaxed); }
  Status status() const {
    MutexLock lock(&mu_);
    return status_;
  }

 private:
  mutable Mutex mu_;
  Status status_ GUARDED_BY(mu_);
  std::atomic<bool> failed_{false};
};

}  // namespace streamglove

#endif  // STREAMGLOVE_UTIL_FIRST_ERROR_H_
