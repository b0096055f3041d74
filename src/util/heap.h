// ReturnFreedHeap: hands memory the allocator holds free back to the system;
// MapLargeAllocations: makes it hand back large blocks as they are freed.
//
// Thread-safety: may be called from any thread; it takes the allocator's
// locks in turn.
#ifndef STREAMGLOVE_UTIL_HEAP_H_
#define STREAMGLOVE_UTIL_HEAP_H_

#include <cstddef>

namespace streamglove {

// glibc's malloc keeps what a phase frees in its per-thread arenas, resident,
// for the allocations to come. A phase whose successor allocates its memory
// otherwise (the trainer's parameters are mapped whole) would leave that
// memory counted in the process's resident set beside the successor's; this
// releases it (malloc_trim), where the allocator is glibc's. A no-op elsewhere.
void ReturnFreedHeap();

// From now on, for the whole process, glibc's malloc maps each allocation of
// `bytes` or more on its own and unmaps it when it is freed (M_MMAP_THRESHOLD).
// By default the threshold starts at 128 KiB and rises to the size of each
// mapped block freed (up to 32 MiB), so buffers of a few MiB that a phase
// allocates and frees over and over (training's part buffers, on reader
// threads, each with its arena) end up in the arenas and stay resident
// after they are freed. A no-op where the allocator is not glibc's.
void MapLargeAllocations(size_t bytes);

}  // namespace streamglove

#endif  // STREAMGLOVE_UTIL_HEAP_H_
