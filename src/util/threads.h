// How many worker threads a stage runs: one rule for vocab, ingest and train.
#ifndef STREAMGLOVE_UTIL_THREADS_H_
#define STREAMGLOVE_UTIL_THREADS_H_

#include "streamglove/options.h"  // kMaxThreads
#include "streamglove/status.h"

namespace streamglove {

// The cores this process may run on (its CPU affinity, so `taskset` and
// container limits count), at least 1.
int AvailableCores();

// `requested` threads if positive, else AvailableCores().
// REQUIRES: CheckThreads(requested).ok().
int ResolveThreads(int requested);

// The --threads check every stage's options validation makes: 0 (all cores)
// to kMaxThreads.
Status CheckThreads(int requested);

}  // namespace streamglove

#endif  // STREAMGLOVE_UTIL_THREADS_H_
