// BatchMerge: one batch's counts, from every counting worker, summed in key
// order into the store's batch by all threads at once.
//
// The key space is cut into ranges of about equal work, estimated from
// samples of every source and aligned to pair blocks (a block must not span
// two ranges: store.h). Each range is merged and written by one thread: the
// workers' shared dense region's cells, the sorted buffers' records and the
// runs' records of the range are k-way merged into the range's SST file,
// which the same thread then finishes (and so syncs).
// A commit costs 1/threads of the serial merge.
//
// Thread-safety: MergeBatch uses the calling thread's task arena; the sources
// must not change while it runs.
#ifndef STREAMGLOVE_COOCCUR_BATCH_MERGE_H_
#define STREAMGLOVE_COOCCUR_BATCH_MERGE_H_

#include <cstdint>
#include <span>
#include <vector>

#include "cooccur/dense_region.h"
#include "cooccur/pair_buffer.h"
#include "cooccur/pair_run.h"
#include "store/store.h"
#include "streamglove/status.h"

namespace streamglove {

// What a batch counted, borrowed from the counting workers.
struct BatchCounts {
  DenseRegion* dense = nullptr;                     // none; else left empty by MergeBatch
  std::vector<std::span<const PairRecord>> sorted;  // combined buffers
  std::vector<PairRun> runs;                        // spilled runs
};

// The starts of at most `max_ranges` key ranges of at least about
// `min_records` records each (one range when the batch is smaller): starts[0]
// is 0, the rest ascend, each the first key of a pair block.
std::vector<uint64_t> SplitKeySpace(const BatchCounts& counts, size_t max_ranges,
                                    uint64_t min_records);

// Merges range i, [starts[i], starts[i + 1]) (the last one open-ended), into
// range i of `batch`, the ranges in parallel. REQUIRES: batch->ranges() ==
// starts.size(); starts as SplitKeySpace returns them.
Status MergeBatch(BatchCounts* counts, const std::vector<uint64_t>& starts, Store::Batch* batch);

}  // namespace streamglove

#endif  // STREAMGLOVE_COOCCUR_BATCH_MERGE_H_
