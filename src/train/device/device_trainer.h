// DeviceTrainer: trains the block stream's parts on a training device
// through its plugin (train/device/device_api.h), as ThreadBucketTrainer
// does on the CPU's threads: the same buckets, prepared (converted and
// shuffled) by the same seeds on the host's threads, trained with the same
// schedule positions. The host's model stays the run's model of record: the
// device gets its arrays when the trainer opens (fresh or resumed), and
// gives them back at CopyModelToHost() (before a checkpoint and the vectors
// file), so checkpoints, the vectors file and a resume on either side are
// the CPU's own.
//
// Streaming: a part's buckets are copied into the plugin's staging slots
// (pinned host memory on CUDA), whole buckets per slot; a slot is submitted
// and the next filled while the device trains it, so the copies and the
// host's preparation overlap the device's updates. The pairs never have to
// fit in device memory; the parameters and the slots' device copies must.
//
// Resident pairs (options.resident_pairs > 0, GloVe, whose converted pairs
// are the same every epoch): the first epoch's submitted slots are also
// kept on the device, and every later epoch is TrainHeld() alone — the
// device trains the kept pairs in an order drawn per epoch
// (train/pair_permutation.h), and nothing is read from the block stream or
// copied to the device. A resumed run keeps them again in its first epoch.
//
// Errors: the first error of the device is kept, and every later call
// returns it (a device session is not used again after one).
//
// Thread-safety: called from one thread (the host's threads prepare buckets
// inside Train()). Ownership: the plugin, the model, the arena and the
// transform must outlive the trainer.
#ifndef STREAMGLOVE_TRAIN_DEVICE_DEVICE_TRAINER_H_
#define STREAMGLOVE_TRAIN_DEVICE_DEVICE_TRAINER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <tbb/task_arena.h>

#include "streamglove/status.h"
#include "streamglove/train.h"
#include "train/bucket_trainer.h"
#include "train/device/device_api.h"
#include "train/device/device_plugin.h"
#include "train/glove_model.h"
#include "train/sgns_model.h"
#include "util/alias_table.h"

namespace streamglove {

// The objective as the device trains it.
struct DeviceObjective {
  Objective objective = Objective::kGlove;
  GloveHyper glove{};                 // with kGlove
  SgnsHyper sgns{};                   // with kSgns
  const AliasTable* noise = nullptr;  // with kSgns: the model's noise words
};

struct DeviceTrainerOptions {
  // Staging slots: three, so one is filled while one is copied and one
  // trained; 2^20 pairs (16 MiB) each, 64 buckets: large enough that a
  // submission's fixed cost (a launch, a copy's latency) is small beside its
  // updates, small beside --memory.
  uint32_t slots = 3;
  uint64_t slot_pairs = uint64_t{1} << 20;
  // One update at a time in the slots' order (tests: equal to a
  // single-threaded CPU run).
  bool sequential = false;
  // The most device memory the session may take (0: what the device
  // reports free).
  uint64_t device_memory = 0;
  // The pairs kept on the device in the first epoch (an epoch's, exactly;
  // 0: every epoch streamed).
  uint64_t resident_pairs = 0;

  // Host memory the slots take (the same again on the device).
  size_t StagingBytes() const { return slots * slot_pairs * sizeof(sg_device_pair); }
  // Device memory the kept pairs take.
  uint64_t ResidentBytes() const { return resident_pairs * sizeof(sg_device_pair); }
};

// The seed of the order in which epoch at.epoch trains the resident pairs
// (PairPermutation(resident_pairs, seed)); its range [p, q) of positions is
// trained as one RangeContext, the ranges cut every kBucketRecords
// positions, with progress (at.before + p) / at.run_records to
// (at.before + q) / at.run_records.
uint64_t HeldOrderSeed(const PartPosition& at);

class DeviceTrainer final : public BucketTrainer {
 public:
  // Asks the plugin's device for its name (*device_name) and free memory,
  // of which options.device_memory (if set) is what the run may take
  // (*usable_bytes): an error, naming the sizes, when `parameter_bytes`,
  // the slots' device copies and the resident pairs do not fit it.
  // `purpose` starts each error line ("--device cuda"). Cheap: called
  // before the block stream is built, so that a device too small fails at
  // once.
  static Status CheckFits(const DevicePlugin* plugin, const std::string& purpose, uint32_t vocab,
                          uint32_t dim, uint64_t parameter_bytes,
                          const DeviceTrainerOptions& options, std::string* device_name,
                          uint64_t* usable_bytes);

  // CheckFits(), then opens a session on the plugin's device for `model`
  // and copies its arrays there.
  static Status Open(const DevicePlugin* plugin, const std::string& purpose, EmbeddingModel* model,
                     const DeviceObjective& objective, tbb::task_arena* arena,
                     const PairTransform* transform, const DeviceTrainerOptions& options,
                     std::unique_ptr<DeviceTrainer>* trainer);
  // Waits for the slots still submitted (an interrupt or an error left
  // them), then closes the session.
  ~DeviceTrainer() override;

  // The device's name, as its plugin gives it.
  const std::string& device_name() const { return device_name_; }

  Status Train(BlockPart* part, size_t* next, const PartPosition& at,
               TrainClock::time_point deadline, uint64_t* trained) override;
  Status WaitAll(RangeTotals* totals) override;
  Status CopyModelToHost() override;
  bool HoldsEpochs() const override { return options_.resident_pairs > 0; }
  Status TrainHeld(const PartPosition& at, uint64_t begin, uint64_t end) override;

 private:
  DeviceTrainer(const DevicePlugin* plugin, std::string purpose, EmbeddingModel* model,
                tbb::task_arena* arena, const PairTransform* transform,
                const DeviceTrainerOptions& options, std::string device_name);

  // OK if `rc` is 0; else the session's error, kept as error_.
  Status Check(int rc, const char* what);
  // Until slot i's work (if any) is done; its totals kept.
  Status WaitSlot(uint32_t i);
  // WaitSlot() on every slot, the oldest submitted first.
  Status WaitSubmitted();

  const sg_device_api& api_;
  const std::string purpose_;
  EmbeddingModel* const model_;
  tbb::task_arena* const arena_;
  const PairTransform* const transform_;
  const DeviceTrainerOptions options_;
  const std::string device_name_;
  sg_device_session* session_ = nullptr;
  std::vector<bool> submitted_;  // per slot: work not yet waited for
  uint32_t next_slot_ = 0;       // the slot filled next (the oldest submitted)
  uint64_t kept_ = 0;            // resident pairs kept so far
  std::vector<sg_device_range> ranges_;
  RangeTotals totals_;
  Status error_;  // the first
};

}  // namespace streamglove

#endif  // STREAMGLOVE_TRAIN_DEVICE_DEVICE_TRAINER_H_
