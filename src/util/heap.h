// ReturnFreedHeap: hands memory the allocator holds free back to the system.
//
// Thread-safety: may be called from any thread; it takes the allocator's
// locks in turn.
#ifndef STREAMGLOVE_UTIL_HEAP_H_
#define STREAMGLOVE_UTIL_HEAP_H_

namespace streamglove {

// glibc's malloc keeps what a phase frees in its per-thread arenas, resident,
// for the allocations to come. A phase whose successor allocates its memory
// otherwise (the trainer's parameters are mapped whole) would leave that
// memory counted in the process's resident set beside the successor's; this
// releases it (malloc_trim), where the allocator is glibc's. A no-op elsewhere.
void ReturnFreedHeap();

}  // namespace streamglove

#endif  // STREAMGLOVE_UTIL_HEAP_H_
