#include "util/heap.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace streamglove {

void ReturnFreedHeap() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

void MapLargeAllocations(size_t bytes) {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, static_cast<int>(bytes));
#else
  (void)bytes;
#endif
}

}  // namespace streamglove
