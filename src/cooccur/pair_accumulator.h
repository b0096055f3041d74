// PairAccumulator: where one thread's co-occurrence increments go.
//
// Pairs inside the thread's dense region are added there; the rest are
// appended to this thread's PairBuffer, which is sorted and combined when
// full and spilled as a run file of the current batch when combining no longer
// frees enough room. Everything is exact integer arithmetic.
//
// Thread-safety: one per thread, with its own dense region.
#ifndef STREAMGLOVE_COOCCUR_PAIR_ACCUMULATOR_H_
#define STREAMGLOVE_COOCCUR_PAIR_ACCUMULATOR_H_

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cooccur/dense_region.h"
#include "cooccur/pair_buffer.h"
#include "cooccur/pair_run.h"
#include "streamglove/status.h"

namespace streamglove {

// The run files of the batch being counted, written by any thread.
class BatchRuns {
 public:
  explicit BatchRuns(std::string dir) : dir_(std::move(dir)) {}
  // A new file name for a run; with `track`, Take() will return it.
  std::string NewPath(bool track = true);
  // The runs written so far, and forgets them.
  std::vector<std::string> Take();

 private:
  const std::string dir_;
  std::mutex mu_;
  uint64_t next_ = 0;               // GUARDED_BY(mu_)
  std::vector<std::string> paths_;  // GUARDED_BY(mu_): tracked paths
};

class PairAccumulator {
 public:
  // A dense region of (row + 1)(col + 1) <= max_product (0: none) and a
  // buffer of `buffer_records`.
  PairAccumulator(uint32_t vocab_size, uint64_t max_product, size_t buffer_records, BatchRuns* runs)
      : dense_(vocab_size, max_product),
        buffer_(buffer_records, vocab_size),
        runs_(runs) {}

  void Add(uint32_t row, uint32_t col, uint64_t value) {
    if (dense_.Contains(row, col)) {
      dense_.Add(row, col, value);
      return;
    }
    if (buffer_.full()) MakeRoom();
    buffer_.Add(row, col, value);
  }

  // The first error met while spilling (counting goes on regardless; the
  // batch will not commit).
  const Status& status() const { return status_; }

  // At the end of a batch: the dense region's cells and the combined buffer
  // as sorted streams (the runs are in BatchRuns); valid until Clear().
  void FinishBatch(std::vector<std::unique_ptr<PairStream>>* streams);
  // Empties the buffer for the next batch.
  void Clear() { buffer_.Clear(); }

  uint64_t spilled_runs() const { return spilled_runs_; }

 private:
  void MakeRoom();

  DenseRegion dense_;
  PairBuffer buffer_;
  BatchRuns* runs_;
  Status status_;
  uint64_t spilled_runs_ = 0;
};

}  // namespace streamglove

#endif  // STREAMGLOVE_COOCCUR_PAIR_ACCUMULATOR_H_
