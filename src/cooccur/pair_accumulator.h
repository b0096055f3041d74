// PairAccumulator: where one thread's co-occurrence increments go.
//
// Pairs inside the dense region that every worker shares are added there
// (through the accumulator's own DenseRegion::Writer). Pairs that involve
// a tail word (an id at or above `head_words`: a word the store has seen
// rarely so far) go to a tail buffer: they almost never meet again within a
// batch, so combining them frees little, and left among the head's pairs
// they would crowd out pairs that do combine (a growing store keeps every
// word, and on wiki100M its tail's pairs made 10-11 spilled runs of the
// head's buffer instead of 7). The tail buffer is sorted and spilled as a run
// whenever it fills. The rest are appended to the head's buffer, which is
// sorted and combined when full and spilled when combining no longer frees
// enough room. Everything is exact integer arithmetic; where a pair goes
// changes only the speed.
//
// Thread-safety: one per thread; accumulators of one dense region run at once.
#ifndef STREAMGLOVE_COOCCUR_PAIR_ACCUMULATOR_H_
#define STREAMGLOVE_COOCCUR_PAIR_ACCUMULATOR_H_

#include <algorithm>
#include <span>

#include "cooccur/dense_region.h"
#include "cooccur/pair_buffer.h"
#include "cooccur/pair_run.h"
#include "streamglove/status.h"

namespace streamglove {

class PairAccumulator {
 public:
  // Sizes of a PairAccumulator, and the dense region it adds to (nullptr:
  // none), which covers ids below head_words.
  struct Layout {
    uint32_t vocab_size = 0;
    uint32_t head_words = 0;  // == vocab_size: no tail
    DenseRegion* dense = nullptr;
    size_t buffer_records = 0;
    size_t tail_records = 0;  // REQUIRES: > 0 when head_words < vocab_size
    // Pairs come in both orders (AddBoth), never in one (Add): the dense
    // region keeps each pair once (DenseRegion).
    bool symmetric = false;
  };

  // REQUIRES: layout.dense, if any, outlives the accumulator.
  PairAccumulator(const Layout& layout, BatchRuns* runs)
      : head_words_(layout.head_words),
        no_dense_(layout.head_words, /*max_product=*/0, layout.symmetric, /*writers=*/1),
        dense_(layout.dense != nullptr ? layout.dense : &no_dense_),
        buffer_(layout.buffer_records, layout.vocab_size),
        tail_(layout.head_words < layout.vocab_size ? layout.tail_records : 0, layout.vocab_size),
        runs_(runs) {}
  PairAccumulator(const PairAccumulator&) = delete;  // dense_ may point into it
  PairAccumulator& operator=(const PairAccumulator&) = delete;

  // Adds to (row, col). REQUIRES: the layout is not symmetric.
  void Add(uint32_t row, uint32_t col, uint64_t value) {
    if (std::max(row, col) >= head_words_) return AddToTail(row, col, value);
    if (dense_.Contains(row, col)) return dense_.Add(row, col, value);
    AddToBuffer(row, col, value);
  }
  // Adds to (a, b) and to (b, a).
  void AddBoth(uint32_t a, uint32_t b, uint64_t value) {
    if (std::max(a, b) >= head_words_) {
      AddToTail(a, b, value);
      return AddToTail(b, a, value);
    }
    if (dense_.Contains(a, b)) return dense_.AddBoth(a, b, value);
    AddToBuffer(a, b, value);
    AddToBuffer(b, a, value);
  }

  // The first error met while spilling (counting goes on regardless; the
  // batch will not commit).
  const Status& status() const { return status_; }

  // At the end of a batch: applies its dense adds, sorts and combines the
  // buffers. The batch's counts are then the dense region (once every
  // accumulator of it has finished), sorted_records(), sorted_tail_records()
  // and the runs in BatchRuns.
  void FinishBatch() {
    dense_.Flush();
    buffer_.SortAndCombine();
    tail_.SortAndCombine();
  }
  // REQUIRES: FinishBatch() since the last Add(); valid until Clear().
  std::span<const PairRecord> sorted_records() const { return buffer_.records(); }
  std::span<const PairRecord> sorted_tail_records() const { return tail_.records(); }
  // Empties the buffers for the next batch (the merge drains the dense region).
  void Clear() {
    buffer_.Clear();
    tail_.Clear();
  }

  uint64_t spilled_runs() const { return spilled_runs_; }

 private:
  void AddToTail(uint32_t row, uint32_t col, uint64_t value) {
    if (tail_.full()) Spill(&tail_);
    tail_.Add(row, col, value);
  }
  void AddToBuffer(uint32_t row, uint32_t col, uint64_t value) {
    if (buffer_.full()) MakeRoom();
    buffer_.Add(row, col, value);
  }
  void MakeRoom();
  // Sorts and combines `buffer` and writes it as a run of the batch.
  void Spill(PairBuffer* buffer);

  const uint32_t head_words_;
  DenseRegion no_dense_;  // what dense_ writes to without a region: nothing
  DenseRegion::Writer dense_;
  PairBuffer buffer_;
  PairBuffer tail_;
  BatchRuns* runs_;
  Status status_;
  uint64_t spilled_runs_ = 0;
};

}  // namespace streamglove

#endif  // STREAMGLOVE_COOCCUR_PAIR_ACCUMULATOR_H_
