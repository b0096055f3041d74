#include "train/bucket_trainer.h"

#include <algorithm>
#include <atomic>

#include <fmt/format.h>
#include <tbb/parallel_for.h>

#include "util/hash.h"

namespace streamglove {

uint64_t MixSeed(uint64_t seed, uint64_t a, uint64_t b) {
  return HashBytes(fmt::format("{}/{}/{}", seed, a, b));
}

namespace {

// Bucket k's tag, apart from the blocks' scatter seeds (MixSeed(seed,
// epoch, block id)): the same generator draws both.
uint64_t BucketTag(const PartPosition& at, size_t k) {
  return (uint64_t{1} << 63) | (uint64_t{at.block} << 32) | k;
}

// Trains a bucket in ranges of at most kBucketRecords, each with its share
// of the bucket's schedule and a seed of its own. A tile is one bucket of
// up to a round's pairs, and skip-gram's subword runs group a range's pairs
// by word: over a whole tile they would be runs of hundreds of pairs.
void TrainInRanges(EmbeddingModel* model, const TrainingPair* pairs, size_t n,
                   const RangeContext& whole, RangeTotals* totals) {
  if (n <= kBucketRecords) return model->TrainRange(pairs, n, whole, totals);
  const double span = whole.progress_end - whole.progress_begin;
  for (size_t at = 0; at < n; at += kBucketRecords) {
    const size_t m = std::min(kBucketRecords, n - at);
    RangeContext range = whole;
    range.progress_begin = whole.progress_begin + span * static_cast<double>(at) / n;
    range.progress_end = whole.progress_begin + span * static_cast<double>(at + m) / n;
    range.seed = MixSeed(whole.seed, at, 0);
    model->TrainRange(pairs + at, m, range, totals);
  }
}

}  // namespace

uint64_t BucketShuffleSeed(const PartPosition& at, size_t k) {
  return MixSeed(at.seed, at.epoch, BucketTag(at, k));
}

RangeContext BucketContext(const PartPosition& at, const BlockPart& part, size_t k) {
  const size_t begin = part.bucket_begin[k], end = part.bucket_begin[k + 1];
  RangeContext context;
  context.progress_begin =
      (at.before + at.records_per_pair * static_cast<double>(begin)) / at.run_records;
  context.progress_end =
      (at.before + at.records_per_pair * static_cast<double>(end)) / at.run_records;
  context.seed = MixSeed(at.seed, at.epoch, BucketTag(at, k) | (uint64_t{1} << 62));
  if (!part.bucket_noise_part.empty()) context.noise_part = part.bucket_noise_part[k];
  return context;
}

Status ThreadBucketTrainer::Train(BlockPart* part, size_t* next, const PartPosition& at,
                                  TrainClock::time_point deadline, uint64_t* trained) {
  std::atomic<size_t> next_bucket{*next};
  std::atomic<uint64_t> pairs{0};
  // Each bucket's totals apart, added in bucket order: the loss logged does
  // not depend on which thread trained what.
  std::vector<RangeTotals> bucket_totals(part->buckets());
  arena_->execute([&] {
    tbb::parallel_for(0, threads_, [&](int) {
      for (size_t k; (k = next_bucket.fetch_add(1, std::memory_order_relaxed)) < part->buckets();) {
        if (deadline != TrainClock::time_point::max() && TrainClock::now() >= deadline) break;
        PrepareBucket(part, k, *transform_, BucketShuffleSeed(at, k));
        const size_t begin = part->bucket_begin[k], end = part->bucket_begin[k + 1];
        TrainInRanges(model_, part->pairs.data() + begin, end - begin, BucketContext(at, *part, k),
                      &bucket_totals[k]);
        pairs.fetch_add(end - begin, std::memory_order_relaxed);
      }
    });
  });
  for (const RangeTotals& t : bucket_totals) totals_ += t;
  *next = std::min(next_bucket.load(), part->buckets());
  *trained = pairs.load();
  return Status::OK();
}

Status ThreadBucketTrainer::WaitAll(RangeTotals* totals) {
  *totals += totals_;
  totals_ = RangeTotals();
  return Status::OK();
}

}  // namespace streamglove
