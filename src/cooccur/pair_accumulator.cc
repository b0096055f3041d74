#include "cooccur/pair_accumulator.h"

namespace streamglove {

void PairAccumulator::MakeRoom() {
  buffer_.SortAndCombine();
  // Combining freed at least a quarter: keep appending to the combined records.
  if (buffer_.size() * 4 <= buffer_.capacity() * 3) return;
  Spill(&buffer_);
}

void PairAccumulator::Spill(PairBuffer* buffer) {
  buffer->SortAndCombine();
  ++spilled_runs_;
  if (status_.ok()) {
    PairRun run;
    status_ = WritePairRun(runs_->NewPath(), buffer->records(), &run);
    if (status_.ok()) runs_->Add(std::move(run));
  }
  buffer->Clear();
}

}  // namespace streamglove
