// LargeArray: a zero-initialised array of trivially copyable T, mapped with
// mmap and advised for transparent huge pages. The counting tables are
// touched at random, so with 4 KiB pages nearly every access misses the TLB;
// 2 MiB pages remove most of those misses (this kernel's THP mode is
// "madvise", so the advice is required).
//
// Thread-safety: as a plain array.
#ifndef STREAMGLOVE_UTIL_LARGE_ARRAY_H_
#define STREAMGLOVE_UTIL_LARGE_ARRAY_H_

#include <sys/mman.h>

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

namespace streamglove {

template <class T>
class LargeArray {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  LargeArray() = default;
  explicit LargeArray(size_t n) : size_(n) {
    if (n == 0) return;
    void* p = ::mmap(nullptr, bytes(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    ::madvise(p, bytes(), MADV_HUGEPAGE);
    data_ = static_cast<T*>(p);
  }
  ~LargeArray() {
    if (data_ != nullptr) ::munmap(data_, bytes());
  }
  LargeArray(LargeArray&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)) {}
  LargeArray& operator=(LargeArray&& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    return *this;
  }

  T* data() { return data_; }
  const T* data() const { return data_; }
  size_t size() const { return size_; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }

 private:
  size_t bytes() const { return size_ * sizeof(T); }
  T* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace streamglove

#endif  // STREAMGLOVE_UTIL_LARGE_ARRAY_H_
