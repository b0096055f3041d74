#include "train/device/device_trainer.h"

#include <algorithm>
#include <cstddef>
#include <cstring>

#include <fmt/format.h>
#include <tbb/parallel_for.h>

#include "streamglove/units.h"

namespace streamglove {

namespace {

// A slot's pairs are streamglove's TrainingPairs, copied as bytes.
static_assert(sizeof(sg_device_pair) == sizeof(TrainingPair) &&
              offsetof(sg_device_pair, row) == offsetof(TrainingPair, row) &&
              offsetof(sg_device_pair, col) == offsetof(TrainingPair, col) &&
              offsetof(sg_device_pair, log_count) == offsetof(TrainingPair, log_count) &&
              offsetof(sg_device_pair, weight) == offsetof(TrainingPair, weight));

// The seeds of a held epoch's order and of its ranges: tags below 2^62,
// apart from the buckets' (BucketShuffleSeed and BucketContext set bit 63).
constexpr uint64_t kHeldOrderTag = uint64_t{1} << 61;
constexpr uint64_t kHeldRangeTag = uint64_t{1} << 60;

// The plugin's lines before a session exists.
constexpr size_t kErrorLineBytes = 1024;

sg_device_model DeviceModel(const EmbeddingModel& model, size_t arrays,
                            const DeviceObjective& objective, const DeviceTrainerOptions& options) {
  sg_device_model m{};
  m.vocab = model.vocab();
  m.dim = model.dim();
  m.stride = RowStride(model.dim());
  m.arrays = static_cast<uint32_t>(arrays);
  m.slots = options.slots;
  m.slot_pairs = options.slot_pairs;
  m.sequential = options.sequential ? 1 : 0;
  m.resident_pairs = options.resident_pairs;
  if (objective.objective == Objective::kSgns) {
    m.objective = SG_DEVICE_SGNS;
    m.eta = objective.sgns.eta;
    m.negatives = objective.sgns.negatives;
    m.noise_threshold = objective.noise->thresholds().data();
    m.noise_alias = objective.noise->aliases().data();
  } else {
    m.objective = SG_DEVICE_GLOVE;
    m.eta = objective.glove.eta;
    m.grad_clip = objective.glove.grad_clip;
    m.step_scale = objective.glove.step_scale;
    m.decay_fraction = objective.glove.decay_fraction;
  }
  return m;
}

}  // namespace

uint64_t HeldOrderSeed(const PartPosition& at) { return MixSeed(at.seed, at.epoch, kHeldOrderTag); }

DeviceTrainer::DeviceTrainer(const DevicePlugin* plugin, std::string purpose, EmbeddingModel* model,
                             tbb::task_arena* arena, const PairTransform* transform,
                             const DeviceTrainerOptions& options, std::string device_name)
    : api_(plugin->api()),
      purpose_(std::move(purpose)),
      model_(model),
      arena_(arena),
      transform_(transform),
      options_(options),
      device_name_(std::move(device_name)),
      submitted_(options.slots, false) {}

DeviceTrainer::~DeviceTrainer() {
  if (session_ == nullptr) return;
  // After an error nothing is waited for: close() finishes or cancels.
  static_cast<void>(WaitSubmitted());
  api_.close(session_);
}

Status DeviceTrainer::CheckFits(const DevicePlugin* plugin, const std::string& purpose,
                                uint32_t vocab, uint32_t dim, uint64_t parameter_bytes,
                                const DeviceTrainerOptions& options, std::string* device_name,
                                uint64_t* usable_bytes) {
  char name[256] = "", error[kErrorLineBytes] = "";
  uint64_t free_bytes = 0;
  if (plugin->api().probe(name, sizeof name, &free_bytes, error, sizeof error) != 0) {
    return Status::IOError(fmt::format("{}: {}", purpose, error));
  }
  *device_name = name;
  const bool capped = options.device_memory > 0 && options.device_memory < free_bytes;
  *usable_bytes = capped ? options.device_memory : free_bytes;
  if (parameter_bytes + options.StagingBytes() + options.ResidentBytes() > *usable_bytes) {
    return Status::InvalidArgument(
        fmt::format("{}: the parameters of {} words x {} dims ({}) and the staging buffers ({}){} "
                    "do not fit in "
                    "the {} {} {}: lower --max-vocab or --dim",
                    purpose, vocab, dim, FormatBytes(static_cast<double>(parameter_bytes)),
                    FormatBytes(static_cast<double>(options.StagingBytes())),
                    options.resident_pairs > 0
                        ? fmt::format(" and the kept pairs ({})",
                                      FormatBytes(static_cast<double>(options.ResidentBytes())))
                        : "",
                    FormatBytes(static_cast<double>(*usable_bytes)),
                    capped ? "that --device-memory allows on" : "free on", name));
  }
  return Status::OK();
}

Status DeviceTrainer::Open(const DevicePlugin* plugin, const std::string& purpose,
                           EmbeddingModel* model, const DeviceObjective& objective,
                           tbb::task_arena* arena, const PairTransform* transform,
                           const DeviceTrainerOptions& options,
                           std::unique_ptr<DeviceTrainer>* trainer) {
  const std::vector<LargeArray<float>*> arrays = model->CheckpointArrays();
  std::string name;
  uint64_t usable = 0;
  SG_RETURN_IF_ERROR(CheckFits(plugin, purpose, model->vocab(), model->dim(),
                               arrays.size() * arrays.front()->size() * sizeof(float), options,
                               &name, &usable));
  std::unique_ptr<DeviceTrainer> t(
      new DeviceTrainer(plugin, purpose, model, arena, transform, options, std::move(name)));
  const sg_device_model config = DeviceModel(*model, arrays.size(), objective, options);
  char error[kErrorLineBytes] = "";
  t->session_ = plugin->api().open(&config, error, sizeof error);
  if (t->session_ == nullptr) {
    return Status::IOError(fmt::format("{}: cannot open {}: {}", purpose, t->device_name_, error));
  }
  for (uint32_t i = 0; i < arrays.size(); ++i) {
    SG_RETURN_IF_ERROR(t->Check(plugin->api().write_array(t->session_, i, arrays[i]->data()),
                                "copying the parameters"));
  }
  *trainer = std::move(t);
  return Status::OK();
}

Status DeviceTrainer::Check(int rc, const char* what) {
  if (rc == 0 || !error_.ok()) return error_;
  const char* why = api_.error(session_);
  error_ = Status::IOError(fmt::format("{}: {} on {}: {}", purpose_, what, device_name_,
                                       why != nullptr && *why != '\0' ? why : "an unknown error"));
  return error_;
}

Status DeviceTrainer::WaitSlot(uint32_t i) {
  SG_RETURN_IF_ERROR(error_);
  if (!submitted_[i]) return Status::OK();
  sg_device_totals t{};
  SG_RETURN_IF_ERROR(Check(api_.wait(session_, i, &t), "training"));
  submitted_[i] = false;
  totals_ += RangeTotals{t.loss, t.updates, t.skipped};
  return Status::OK();
}

Status DeviceTrainer::Train(BlockPart* part, size_t* next, const PartPosition& at,
                            TrainClock::time_point deadline, uint64_t* trained) {
  *trained = 0;
  SG_RETURN_IF_ERROR(error_);
  while (*next < part->buckets()) {
    if (deadline != TrainClock::time_point::max() && TrainClock::now() >= deadline) break;
    // Whole buckets, as many as the slot holds: a bucket is one range, so
    // its schedule and seeds are the CPU's.
    const size_t first = *next, base = part->bucket_begin[first];
    size_t last = first;
    while (last < part->buckets() && part->bucket_begin[last + 1] - base <= options_.slot_pairs) {
      ++last;
    }
    if (last == first) {
      return Status::InvalidArgument(
          fmt::format("{}: a bucket of {} pairs does not fit a staging slot of {}", purpose_,
                      part->bucket_begin[first + 1] - base, options_.slot_pairs));
    }
    const uint32_t slot = next_slot_;
    SG_RETURN_IF_ERROR(WaitSlot(slot));
    sg_device_pair* staging = api_.slot(session_, slot);
    if (staging == nullptr) return Check(1, "finding a staging slot");
    arena_->execute([&] {
      tbb::parallel_for(first, last, [&](size_t k) {
        PrepareBucket(part, k, *transform_, BucketShuffleSeed(at, k));
        const size_t begin = part->bucket_begin[k], end = part->bucket_begin[k + 1];
        std::memcpy(staging + (begin - base), part->pairs.data() + begin,
                    (end - begin) * sizeof(TrainingPair));
      });
    });
    ranges_.clear();
    for (size_t k = first; k < last; ++k) {
      const RangeContext context = BucketContext(at, *part, k);
      ranges_.push_back({part->bucket_begin[k] - base, part->bucket_begin[k + 1] - base,
                         context.progress_begin, context.progress_end, context.seed});
    }
    SG_RETURN_IF_ERROR(
        Check(api_.submit(session_, slot, ranges_.data(), static_cast<uint32_t>(ranges_.size())),
              "submitting pairs"));
    submitted_[slot] = true;
    next_slot_ = (slot + 1) % options_.slots;
    const uint64_t n = part->bucket_begin[last] - base;
    if (kept_ < options_.resident_pairs) {
      if (kept_ + n > options_.resident_pairs) {
        return Status::Corruption(
            fmt::format("{}: the block stream's epoch holds more than the {} pairs its index says",
                        purpose_, options_.resident_pairs));
      }
      SG_RETURN_IF_ERROR(Check(api_.keep(session_, slot, kept_), "keeping pairs"));
      kept_ += n;
    }
    *trained += n;
    *next = last;
  }
  return Status::OK();
}

Status DeviceTrainer::TrainHeld(const PartPosition& at, uint64_t begin, uint64_t end) {
  SG_RETURN_IF_ERROR(error_);
  if (kept_ != options_.resident_pairs) {
    return Status::Corruption(
        fmt::format("{}: the block stream's epoch held {} of the {} pairs its index says", purpose_,
                    kept_, options_.resident_pairs));
  }
  const uint64_t order_seed = HeldOrderSeed(at);
  // Whole ranges per submission, a slot's worth of them.
  const uint64_t per_submission =
      std::max<uint64_t>(1, options_.slot_pairs / kBucketRecords) * kBucketRecords;
  while (begin < end) {
    const uint64_t stop = std::min(end, begin + per_submission);
    const uint32_t slot = next_slot_;
    SG_RETURN_IF_ERROR(WaitSlot(slot));
    // Ranges of a bucket's pairs each, with its share of the schedule and
    // a seed, as the streamed epochs' buckets.
    ranges_.clear();
    for (uint64_t p = begin, q; p < stop; p = q) {
      // On the epoch's grid of kBucketRecords, whatever the slots' size.
      q = std::min<uint64_t>(stop, (p / kBucketRecords + 1) * kBucketRecords);
      ranges_.push_back({p, q, (at.before + static_cast<double>(p)) / at.run_records,
                         (at.before + static_cast<double>(q)) / at.run_records,
                         MixSeed(at.seed, at.epoch, kHeldRangeTag | p)});
    }
    SG_RETURN_IF_ERROR(
        Check(api_.submit_resident(session_, slot, ranges_.data(),
                                   static_cast<uint32_t>(ranges_.size()), order_seed),
              "submitting kept pairs"));
    submitted_[slot] = true;
    next_slot_ = (slot + 1) % options_.slots;
    begin = stop;
  }
  return Status::OK();
}

Status DeviceTrainer::WaitSubmitted() {
  // The oldest submitted first: the device trains them in that order.
  for (uint32_t k = 0; k < options_.slots; ++k) {
    SG_RETURN_IF_ERROR(WaitSlot((next_slot_ + k) % options_.slots));
  }
  return Status::OK();
}

Status DeviceTrainer::WaitAll(RangeTotals* totals) {
  SG_RETURN_IF_ERROR(WaitSubmitted());
  *totals += totals_;
  totals_ = RangeTotals();
  return Status::OK();
}

Status DeviceTrainer::CopyModelToHost() {
  SG_RETURN_IF_ERROR(WaitSubmitted());  // their totals stay for the next WaitAll()
  const std::vector<LargeArray<float>*> arrays = model_->CheckpointArrays();
  for (uint32_t i = 0; i < arrays.size(); ++i) {
    SG_RETURN_IF_ERROR(
        Check(api_.read_array(session_, i, arrays[i]->data()), "copying the parameters back"));
  }
  return Status::OK();
}

}  // namespace streamglove
