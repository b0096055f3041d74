// BucketTrainer: trains the buckets of the block stream's parts (train/
// block_reader.h) into a model — on the CPU's threads (ThreadBucketTrainer,
// here), or on a device (DeviceTrainer, train/device/device_trainer.h). The
// epoch loop reads parts and hands them over; each bucket is prepared
// (converted and shuffled) and trained with the seeds and schedule position
// below, whoever trains it, so that one device run and one single-threaded
// CPU run make the same updates in the same order.
//
// Thread-safety: a trainer is called from one thread.
#ifndef STREAMGLOVE_TRAIN_BUCKET_TRAINER_H_
#define STREAMGLOVE_TRAIN_BUCKET_TRAINER_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <tbb/task_arena.h>

#include "streamglove/status.h"
#include "train/block_reader.h"
#include "train/block_stream.h"
#include "train/embedding_model.h"

namespace streamglove {

using TrainClock = std::chrono::steady_clock;

// Deterministic per (seed, a, b): epochs, blocks and buckets draw from their
// own streams, so a resumed run shuffles as an uninterrupted one would.
uint64_t MixSeed(uint64_t seed, uint64_t a, uint64_t b);

// Where a part sits in the run: its epoch and block (for the buckets'
// seeds), and, in stored records, how much of the run precedes it and the
// run's length (for a decaying learning rate; SGNS's parts hold unit
// updates, records_per_pair of a stored record each).
struct PartPosition {
  uint64_t seed = 0;
  uint32_t epoch = 0;
  size_t block = 0;
  double before = 0;
  double records_per_pair = 0;
  double run_records = 1;
};

// Bucket k of `part`: the seed its pairs are shuffled with (PrepareBucket),
// and the schedule position and seed it is trained with.
uint64_t BucketShuffleSeed(const PartPosition& at, size_t k);
RangeContext BucketContext(const PartPosition& at, const BlockPart& part, size_t k);

class BucketTrainer {
 public:
  virtual ~BucketTrainer() = default;

  // Trains the part's buckets from *next on until all are taken or
  // `deadline` passes (a bucket taken after it is left untouched); *next is
  // then the first bucket not taken, *trained the pairs taken. The part may
  // be refilled once this returns.
  virtual Status Train(BlockPart* part, size_t* next, const PartPosition& at,
                       TrainClock::time_point deadline, uint64_t* trained) = 0;

  // Waits for every update made so far and adds their totals since the
  // last call to *totals.
  virtual Status WaitAll(RangeTotals* totals) = 0;

  // After WaitAll(): leaves every update in the model's arrays, for a
  // checkpoint or the vectors file (a device copies its parameters back).
  virtual Status CopyModelToHost() = 0;

  // Whether the trainer keeps the pairs of the call's first epoch, and
  // trains every later epoch from them (TrainHeld) without a reader. Known
  // before the first epoch: a device's resident pairs.
  virtual bool HoldsEpochs() const { return false; }
  // Trains positions [begin, end) of epoch at.epoch's order of the held
  // pairs (an order drawn from at.seed and at.epoch); at.before is where
  // the epoch starts in the run, and `begin` a multiple of kBucketRecords
  // (the positions are trained in ranges of as many). Only where
  // HoldsEpochs().
  virtual Status TrainHeld(const PartPosition& at, uint64_t begin, uint64_t end) = 0;
};

// The CPU's threads in `arena` take the buckets in turn, each preparing a
// bucket (converted and shuffled: the second pass of the reader's shuffle)
// and training it, without locks. A round of tiles (train/tile_reader.h)
// has buckets that share no row, so the run does not depend on the thread
// count; a random block's buckets share rows (Hogwild), and one thread
// taking them in order makes its run reproducible. `arena`, `model` and
// `transform` must outlive it.
class ThreadBucketTrainer final : public BucketTrainer {
 public:
  ThreadBucketTrainer(tbb::task_arena* arena, int threads, EmbeddingModel* model,
                      const PairTransform* transform)
      : arena_(arena), threads_(threads), model_(model), transform_(transform) {}

  Status Train(BlockPart* part, size_t* next, const PartPosition& at,
               TrainClock::time_point deadline, uint64_t* trained) override;
  Status WaitAll(RangeTotals* totals) override;
  // The threads update the model's own arrays.
  Status CopyModelToHost() override { return Status::OK(); }
  // Holds no epoch: every epoch is read.
  Status TrainHeld(const PartPosition&, uint64_t, uint64_t) override {
    return Status::InvalidArgument("the CPU's threads hold no epoch");
  }

 private:
  tbb::task_arena* const arena_;
  const int threads_;
  EmbeddingModel* const model_;
  const PairTransform* const transform_;
  RangeTotals totals_;  // since the last WaitAll()
};

}  // namespace streamglove

#endif  // STREAMGLOVE_TRAIN_BUCKET_TRAINER_H_
