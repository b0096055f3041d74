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

#include <span>

#include "cooccur/dense_region.h"
#include "cooccur/pair_buffer.h"
#include "cooccur/pair_run.h"
#include "streamglove/status.h"

namespace streamglove {

class PairAccumulator {
 public:
  // A dense region of (row + 1)(col + 1) <= max_product (0: none) and a
  // buffer of `buffer_records`, which spills a run when combining frees too
  // little.
  PairAccumulator(uint32_t vocab_size, uint64_t max_product, size_t buffer_records, BatchRuns* runs)
      : dense_(vocab_size, max_product), buffer_(buffer_records, vocab_size), runs_(runs) {}

  // A hint that Add(row, col, ...) follows soon.
  void Prefetch(uint32_t row, uint32_t col) const { dense_.Prefetch(row, col); }

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

  // At the end of a batch: sorts and combines the buffer. The batch's counts
  // are then the dense region, sorted_records() and the runs in BatchRuns.
  void FinishBatch() { buffer_.SortAndCombine(); }
  DenseRegion* dense() { return &dense_; }
  // REQUIRES: FinishBatch() since the last Add(); valid until Clear().
  std::span<const PairRecord> sorted_records() const { return buffer_.records(); }
  // Empties the buffer for the next batch (the merge drains the dense region).
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
