#include "cooccur/pair_accumulator.h"

namespace streamglove {

void PairAccumulator::MakeRoom() {
  buffer_.SortAndCombine();
  // Combining freed at least a quarter: keep appending to the combined records.
  if (buffer_.size() * 4 <= buffer_.limit() * 3) return;
  // Else more of the buffer's memory, while it has some: a spill costs disk
  // and merge work, the first touch of fresh pages only once.
  if (buffer_.Grow()) return;
  ++spilled_runs_;
  if (status_.ok()) {
    PairRun run;
    status_ = WritePairRun(runs_->NewPath(), buffer_.records(), &run);
    if (status_.ok()) runs_->Add(std::move(run));
  }
  buffer_.Clear();
}

}  // namespace streamglove
