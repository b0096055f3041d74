// Mutex and MutexLock: std::mutex with clang's thread-safety annotations.
//
// A member declared `T x_ GUARDED_BY(mu_);` may be touched only while mu_ is
// held; clang's -Wthread-safety (on in the fuzz build, whose compiler is
// clang) checks that at compile time. Under GCC the annotations are empty.
//
// Thread-safety: a Mutex is what makes other things thread-safe; MutexLock
// holds it for its scope.
#ifndef STREAMGLOVE_UTIL_MUTEX_H_
#define STREAMGLOVE_UTIL_MUTEX_H_

#include <mutex>

#if defined(__clang__)
#define SG_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define SG_THREAD_ANNOTATION(x)
#endif

#define CAPABILITY(x) SG_THREAD_ANNOTATION(capability(x))
#define SCOPED_CAPABILITY SG_THREAD_ANNOTATION(scoped_lockable)
#define GUARDED_BY(x) SG_THREAD_ANNOTATION(guarded_by(x))
#define ACQUIRE(...) SG_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define RELEASE(...) SG_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
#define EXCLUDES(...) SG_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))

namespace streamglove {

class CAPABILITY("mutex") Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void Lock() ACQUIRE() { mu_.lock(); }
  void Unlock() RELEASE() { mu_.unlock(); }

 private:
  std::mutex mu_;
};

class SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex* mu) ACQUIRE(mu) : mu_(mu) { mu_->Lock(); }
  ~MutexLock() RELEASE() { mu_->Unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex* const mu_;
};

}  // namespace streamglove

#endif  // STREAMGLOVE_UTIL_MUTEX_H_
