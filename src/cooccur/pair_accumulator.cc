#include "cooccur/pair_accumulator.h"

#include <fmt/format.h>

namespace streamglove {

std::string BatchRuns::NewPath(bool track) {
  std::lock_guard<std::mutex> lock(mu_);
  std::string path = fmt::format("{}/pairs-{:06d}", dir_, next_++);
  if (track) paths_.push_back(path);
  return path;
}

std::vector<std::string> BatchRuns::Take() {
  std::lock_guard<std::mutex> lock(mu_);
  return std::exchange(paths_, {});
}

void PairAccumulator::MakeRoom() {
  buffer_.SortAndCombine();
  // Combining freed at least a quarter: keep appending to the combined records.
  if (buffer_.size() * 4 <= buffer_.capacity() * 3) return;
  ++spilled_runs_;
  if (status_.ok()) status_ = WritePairRun(runs_->NewPath(), buffer_.records());
  buffer_.Clear();
}

void PairAccumulator::FinishBatch(std::vector<std::unique_ptr<PairStream>>* streams) {
  streams->push_back(dense_.NewDrainStream());
  buffer_.SortAndCombine();
  streams->push_back(NewPairSpanStream(buffer_.records()));
}

}  // namespace streamglove
