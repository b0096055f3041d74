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

}  // namespace streamglove
