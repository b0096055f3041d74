// The device trainer's host side, against the reference device (a plugin
// that trains on the CPU, tests/train/device/reference_device.cc): loading
// and its errors, slots and ranges, and runs and checkpoints equal to the
// CPU's single-threaded ones.
#include "train/device/device_trainer.h"

#include <dlfcn.h>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

#include "streamglove/train.h"
#include "test_util.h"
#include "train/bucket_trainer.h"
#include "train/device/device_plugin.h"
#include "train/glove_model.h"
#include "train/pair_permutation.h"
#include "train/train_fixture.h"
#include "util/file.h"

using namespace streamglove;
using namespace streamglove::test;

namespace {

// Sets an environment variable for a scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (had_) {
      setenv(name_, old_.c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

bool Contains(const Status& s, const std::string& text) {
  return s.ToString().find(text) != std::string::npos;
}

// The run's vectors file and its loss log without the timing columns.
struct RunResult {
  std::string vectors, losses;
  TrainStats stats;
};

RunResult Run(const TrainFixture& f, const std::string& name, const TrainOptions& o) {
  RunResult r;
  r.vectors = f.Run(name, o, &r.stats);
  std::istringstream log(ReadFile(f.dir.path() + "/" + name + ".log.tsv"));
  for (std::string line; std::getline(log, line);) {
    std::istringstream fields(line);
    std::string epoch, loss;
    fields >> epoch >> loss;
    r.losses += epoch + " " + loss + "\n";
  }
  return r;
}

// A device trains random blocks: so does the CPU run it is compared with.
TrainOptions CpuLikeDevice(TrainOptions o) {
  o.schedule = TrainSchedule::kHogwild;
  return o;
}

TrainOptions OnDevice(TrainOptions o, int host_threads) {
  o.device = TrainDevice::kCuda;
  o.threads = host_threads;
  o.memory_bytes += DeviceTrainerOptions().StagingBytes();  // the same blocks as on the CPU
  return o;
}

// OnDevice with device memory for the parameters and slots of `cpu`'s run
// and half its pairs: every epoch streamed, as the CPU reads them.
TrainOptions StreamedOnDevice(TrainOptions o, int host_threads, const TrainStats& cpu) {
  o = OnDevice(o, host_threads);
  const uint64_t parameters = uint64_t{4} * cpu.vocab_size * RowStride(o.dim) * sizeof(float);
  o.device_memory_bytes =
      parameters + DeviceTrainerOptions().StagingBytes() + cpu.pairs * sizeof(TrainingPair) / 2;
  return o;
}

// Three parts of 9 buckets each, ready to train (not unconverted), of
// `least` to least + spread - 1 pairs a bucket over `vocab` words.
std::vector<BlockPart> ConvertedParts(uint64_t seed, uint32_t vocab, size_t least, size_t spread) {
  std::mt19937_64 rng(seed);
  std::vector<BlockPart> parts(3);
  for (BlockPart& part : parts) {
    part.bucket_begin = {0};
    for (int k = 0; k < 9; ++k) {
      const size_t n = least + rng() % spread;
      for (size_t i = 0; i < n; ++i) {
        const uint32_t row = rng() % vocab, col = rng() % vocab;
        const float x = 1 + static_cast<float>(rng() % 50);
        part.pairs.push_back({row, col, std::log(x), std::min(1.0f, std::pow(x / 10, 0.75f))});
      }
      part.bucket_begin.push_back(part.pairs.size());
    }
  }
  return parts;
}

// Every parameter array of `a` and `b` the same bytes.
void CheckSameArrays(EmbeddingModel& a, EmbeddingModel& b) {
  const auto a_arrays = a.CheckpointArrays(), b_arrays = b.CheckpointArrays();
  REQUIRE(a_arrays.size() == b_arrays.size());
  for (size_t k = 0; k < a_arrays.size(); ++k) {
    INFO("array " << k);
    CHECK(std::memcmp(a_arrays[k]->data(), b_arrays[k]->data(),
                      a_arrays[k]->size() * sizeof(float)) == 0);
  }
}

}  // namespace

TEST_CASE("A device plugin that is missing, no plugin, or of another version is refused",
          "[train][device]") {
  std::unique_ptr<DevicePlugin> plugin;
  {
    ScopedEnv none(kCudaPluginVariable, "");
    unsetenv(kCudaPluginVariable);
    const Status s = DevicePlugin::LoadCuda(&plugin);
    INFO(s.ToString());
    if (PathExists(CudaPluginCandidates().front())) {
      // A build with the CUDA plugin puts it beside the binaries: found first.
      REQUIRE(s.ok());
      CHECK(plugin->path() == CudaPluginCandidates().front());
    } else {
      CHECK(s.code() == Status::Code::kNotFound);
      CHECK(Contains(s, kCudaPluginFile));
      CHECK(Contains(s, kCudaPluginVariable));
      CHECK(Contains(s, CudaPluginCandidates().front()));
    }
  }
  {
    ScopedEnv missing(kCudaPluginVariable, "/nonexistent/libstreamglove_cuda.so");
    const Status s = DevicePlugin::LoadCuda(&plugin);
    INFO(s.ToString());
    CHECK(Contains(s, "cannot load /nonexistent/libstreamglove_cuda.so"));
  }
  TestDir dir("sg-device-");
  WriteFile(dir.path() + "/text.so", "not a shared object\n");
  CHECK(Contains(DevicePlugin::Load(dir.path() + "/text.so", "test", &plugin), "cannot load"));
  // A shared library, but no plugin: zlib's, found through one of its symbols.
  Dl_info zlib{};
  REQUIRE(dladdr(reinterpret_cast<void*>(&zlibVersion), &zlib) != 0);
  const Status no_entry = DevicePlugin::Load(zlib.dli_fname, "test", &plugin);
  INFO(no_entry.ToString());
  CHECK(Contains(no_entry, "exports no streamglove_device_api"));
  {
    ScopedEnv abi("STREAMGLOVE_REFERENCE_DEVICE_ABI", "999");
    const Status s = DevicePlugin::Load(SG_REFERENCE_DEVICE, "test", &plugin);
    INFO(s.ToString());
    CHECK(Contains(s, "version 999"));
  }
  REQUIRE(DevicePlugin::Load(SG_REFERENCE_DEVICE, "test", &plugin).ok());
  CHECK(plugin->api().abi_version == SG_DEVICE_ABI_VERSION);
}

TEST_CASE("Slots cycle while the device trains: the updates are one CPU thread's, bit for bit",
          "[train][device]") {
  // Parts of 9 buckets of uneven sizes, ready to train (not unconverted):
  // three parts, each overwriting the last in one BlockPart as the block
  // reader does, while the device may still train the slots of the last.
  constexpr uint32_t kVocab = 300, kDim = 24;
  const std::vector<BlockPart> parts = ConvertedParts(3, kVocab, 200, 300);
  const auto part_count = static_cast<uint32_t>(parts.size());
  size_t largest = 0, total = 0;
  for (const BlockPart& part : parts) {
    for (size_t k = 0; k < part.buckets(); ++k) {
      largest = std::max(largest, part.bucket_begin[k + 1] - part.bucket_begin[k]);
    }
    total += part.pairs.size();
  }
  // Part p's place in a run of the three.
  const auto position = [&](uint32_t p) {
    PartPosition at;
    at.seed = 9;
    at.block = p;
    at.records_per_pair = 1;
    at.run_records = static_cast<double>(total);
    for (uint32_t q = 0; q < p; ++q) at.before += static_cast<double>(parts[q].pairs.size());
    return at;
  };
  const GloveHyper hyper{0.05f, 100, 2, 0.5};
  PairTransform transform;  // unused: the parts are converted
  tbb::task_arena arena(2);
  // Trains the parts in turn through one BlockPart; each part in one call,
  // or (split) first in a call whose deadline has passed, which takes
  // nothing.
  const auto train = [&](BucketTrainer* trainer, bool split, RangeTotals* totals) {
    BlockPart part;
    for (uint32_t p = 0; p < part_count; ++p) {
      part = parts[p];
      size_t next = 0;
      uint64_t trained = 0;
      if (split) {
        REQUIRE(trainer->Train(&part, &next, position(p), TrainClock::now(), &trained).ok());
        CHECK(next == 0);
      }
      REQUIRE(
          trainer->Train(&part, &next, position(p), TrainClock::time_point::max(), &trained).ok());
      CHECK(next == part.buckets());
      CHECK(trained == part.pairs.size());
    }
    REQUIRE(trainer->WaitAll(totals).ok());
    REQUIRE(trainer->CopyModelToHost().ok());
  };

  GloveModel cpu(kVocab, kDim, 4, hyper);
  ThreadBucketTrainer one_thread(&arena, 1, &cpu, &transform);
  RangeTotals cpu_totals;
  train(&one_thread, false, &cpu_totals);

  std::unique_ptr<DevicePlugin> plugin;
  REQUIRE(DevicePlugin::Load(SG_REFERENCE_DEVICE, "test", &plugin).ok());
  GloveModel host(kVocab, kDim, 4, hyper);
  DeviceObjective objective;
  objective.glove = hyper;
  // A trainer of two slots of `slot_pairs` pairs on the reference device.
  const auto open = [&](uint64_t slot_pairs) {
    DeviceTrainerOptions options;
    options.slots = 2;
    options.slot_pairs = slot_pairs;
    std::unique_ptr<DeviceTrainer> trainer;
    REQUIRE(DeviceTrainer::Open(plugin.get(), "test", &host, objective, &arena, &transform, options,
                                &trainer)
                .ok());
    return trainer;
  };
  const std::unique_ptr<DeviceTrainer> device = open(largest + 100);  // 1-2 buckets: many waits
  RangeTotals device_totals;
  train(device.get(), true, &device_totals);
  CHECK(device_totals.updates == cpu_totals.updates);
  // The same costs, summed per slot first: equal but for the sums' rounding.
  CHECK(device_totals.loss == Approx(cpu_totals.loss).epsilon(1e-12));
  CheckSameArrays(cpu, host);

  // A bucket larger than a slot is an error, not a bucket cut in two.
  const std::unique_ptr<DeviceTrainer> small = open(largest - 1);
  Status refused;
  for (uint32_t p = 0; p < part_count && refused.ok(); ++p) {
    BlockPart part = parts[p];
    size_t next = 0;
    uint64_t trained = 0;
    refused = small->Train(&part, &next, position(p), TrainClock::time_point::max(), &trained);
  }
  INFO(refused.ToString());
  CHECK(Contains(refused, "does not fit a staging slot"));
}

TEST_CASE("Training on a device equals one CPU thread: GloVe and SGNS, vectors and losses",
          "[train][device]") {
  TrainFixture f;
  ScopedEnv plugin(kCudaPluginVariable, SG_REFERENCE_DEVICE);
  TrainOptions glove = CpuLikeDevice(f.Options());
  TrainOptions sgns = glove;
  sgns.objective = Objective::kSgns;
  sgns.subwords.chosen = true;  // words as atoms, as a device trains them
  for (const TrainOptions& o : {glove, sgns}) {
    INFO(ObjectiveName(o.objective));
    const RunResult cpu = Run(f, "cpu.txt", o);
    // The host's threads prepare buckets in parallel; the updates stay in order.
    for (int host_threads : {1, 2}) {
      INFO("host threads " << host_threads);
      const RunResult device = Run(f, "device.txt", StreamedOnDevice(o, host_threads, cpu.stats));
      CHECK(device.stats.device == "reference device (the CPU, one thread)");
      CHECK(device.stats.device_resident_pairs == 0);
      CHECK(device.vectors == cpu.vectors);
      CHECK(device.losses == cpu.losses);
      CHECK(device.stats.epochs.size() == cpu.stats.epochs.size());
    }
  }
}

TEST_CASE("A device's checkpoint resumes on the CPU and the CPU's on a device", "[train][device]") {
  TrainFixture f;
  ScopedEnv plugin(kCudaPluginVariable, SG_REFERENCE_DEVICE);
  TrainOptions o = CpuLikeDevice(f.Options());
  o.decay_fraction = 0;  // a checkpoint then resumes a longer run
  const RunResult straight = Run(f, "straight.txt", o);
  TrainOptions two = o;
  two.epochs = 2;
  TrainOptions resume = o;
  resume.resume = true;

  Run(f, "a.txt", StreamedOnDevice(two, 1, straight.stats));
  const RunResult cpu_after_device = Run(f, "a.txt", resume);
  CHECK(cpu_after_device.stats.start_epoch == 2);
  CHECK(cpu_after_device.vectors == straight.vectors);
  CHECK(cpu_after_device.losses == straight.losses);

  Run(f, "b.txt", two);
  const RunResult device_after_cpu = Run(f, "b.txt", StreamedOnDevice(resume, 1, straight.stats));
  CHECK(device_after_cpu.stats.start_epoch == 2);
  CHECK(device_after_cpu.vectors == straight.vectors);
}

TEST_CASE("A device too small, or failing mid-run, ends training with one line",
          "[train][device]") {
  TrainFixture f;
  ScopedEnv plugin(kCudaPluginVariable, SG_REFERENCE_DEVICE);
  TrainStats stats;
  {
    // The staging slots are host memory, within --memory.
    TrainOptions tight = OnDevice(f.Options(), 1);
    tight.memory_bytes = f.Options().memory_bytes;
    const Status s = Train(f.store, f.dir.path() + "/tight.txt", tight, &stats);
    INFO(s.ToString());
    CHECK(Contains(s, "the device's staging buffers (48.0 MiB)"));
  }
  {
    ScopedEnv memory("STREAMGLOVE_REFERENCE_DEVICE_MEMORY", "100000");
    const Status s = Train(f.store, f.dir.path() + "/small.txt", OnDevice(f.Options(), 1), &stats);
    INFO(s.ToString());
    CHECK(Contains(s, "--device cuda: the parameters of"));
    CHECK(Contains(s, "do not fit in the 97.7 KiB free on reference device"));
  }
  {
    // The second slot trained fails.
    ScopedEnv fail("STREAMGLOVE_REFERENCE_DEVICE_FAIL_AFTER", "1");
    const Status s = Train(f.store, f.dir.path() + "/fail.txt", OnDevice(f.Options(), 1), &stats);
    INFO(s.ToString());
    CHECK(Contains(s, "--device cuda: training on reference device"));
    CHECK(Contains(s, "injected failure"));
  }
  TrainOptions budget = OnDevice(f.Options(), 1);
  budget.budget_seconds = 60;
  CHECK(Contains(ValidateTrainOptions(budget), "--budget plans CPU training"));
}

TEST_CASE("Resident pairs: later epochs train the kept pairs in the device's order",
          "[train][device]") {
  // Three converted parts of 9 buckets: an epoch of about 54,000 pairs,
  // three ranges of kBucketRecords and a part of one.
  constexpr uint32_t kVocab = 200, kDim = 20;
  const std::vector<BlockPart> parts = ConvertedParts(5, kVocab, 1500, 1000);
  std::vector<TrainingPair> epoch;  // the parts' pairs in order: what is kept
  for (const BlockPart& part : parts)
    epoch.insert(epoch.end(), part.pairs.begin(), part.pairs.end());
  const uint64_t total = epoch.size();
  REQUIRE(total > 3 * kBucketRecords);
  const GloveHyper hyper{0.05f, 100, 2, 0.5};
  PairTransform transform;  // unused: the parts are converted
  tbb::task_arena arena(2);
  PartPosition at;
  at.seed = 11;
  at.records_per_pair = 1;
  at.run_records = 2.0 * static_cast<double>(total);
  // Epoch 0 streamed part by part.
  const auto first_epoch = [&](BucketTrainer* trainer) {
    at.epoch = 0;
    at.before = 0;
    for (uint32_t p = 0; p < parts.size(); ++p) {
      BlockPart part = parts[p];
      at.block = p;
      size_t next = 0;
      uint64_t trained = 0;
      REQUIRE(trainer->Train(&part, &next, at, TrainClock::time_point::max(), &trained).ok());
      at.before += static_cast<double>(part.pairs.size());
    }
  };

  // The reference: one CPU thread's epoch 0, then epoch 1 by hand, the kept
  // pairs gathered in PairPermutation's order, range by range.
  GloveModel cpu(kVocab, kDim, 4, hyper);
  ThreadBucketTrainer one_thread(&arena, 1, &cpu, &transform);
  first_epoch(&one_thread);
  at.epoch = 1;
  at.block = 0;
  at.before = static_cast<double>(total);
  const PairPermutation order(total, HeldOrderSeed(at));
  RangeTotals cpu_totals;
  REQUIRE(one_thread.WaitAll(&cpu_totals).ok());
  for (uint64_t p = 0; p < total; p += kBucketRecords) {
    const uint64_t q = std::min<uint64_t>(total, p + kBucketRecords);
    std::vector<TrainingPair> gathered;
    for (uint64_t t = p; t < q; ++t) gathered.push_back(epoch[order.Of(t)]);
    RangeContext range;
    range.progress_begin = (at.before + static_cast<double>(p)) / at.run_records;
    range.progress_end = (at.before + static_cast<double>(q)) / at.run_records;
    cpu.TrainRange(gathered.data(), gathered.size(), range, &cpu_totals);
  }

  std::unique_ptr<DevicePlugin> plugin;
  REQUIRE(DevicePlugin::Load(SG_REFERENCE_DEVICE, "test", &plugin).ok());
  DeviceObjective objective;
  objective.glove = hyper;
  // Slots of 20,000 pairs (a submission of one range: 16,384 positions),
  // and the epoch handed over in two calls.
  const auto device_run = [&](uint64_t resident_pairs, GloveModel* host, RangeTotals* totals) {
    DeviceTrainerOptions options;
    options.slots = 2;
    options.slot_pairs = 20000;
    options.resident_pairs = resident_pairs;
    std::unique_ptr<DeviceTrainer> trainer;
    REQUIRE(DeviceTrainer::Open(plugin.get(), "test", host, objective, &arena, &transform, options,
                                &trainer)
                .ok());
    CHECK(trainer->HoldsEpochs());
    first_epoch(trainer.get());
    at.epoch = 1;
    at.before = static_cast<double>(total);
    Status s = trainer->TrainHeld(at, 0, 2 * kBucketRecords);
    if (s.ok()) s = trainer->TrainHeld(at, 2 * kBucketRecords, total);
    if (s.ok()) s = trainer->WaitAll(totals);
    if (s.ok()) s = trainer->CopyModelToHost();
    return s;
  };
  GloveModel host(kVocab, kDim, 4, hyper);
  RangeTotals device_totals;
  REQUIRE(device_run(total, &host, &device_totals).ok());
  CHECK(device_totals.updates == 2 * total);
  CHECK(device_totals.loss == Approx(cpu_totals.loss).epsilon(1e-12));
  CheckSameArrays(cpu, host);

  // An epoch shorter than the pairs planned is an error, not a partial order.
  GloveModel short_host(kVocab, kDim, 4, hyper);
  RangeTotals ignored;
  const Status short_epoch = device_run(total + 1, &short_host, &ignored);
  INFO(short_epoch.ToString());
  CHECK(Contains(short_epoch, "the block stream's epoch held"));
}

TEST_CASE("A device keeps GloVe's pairs when they fit, and streams them otherwise",
          "[train][device]") {
  TrainFixture f;
  ScopedEnv plugin(kCudaPluginVariable, SG_REFERENCE_DEVICE);
  const TrainOptions o = CpuLikeDevice(f.Options());
  const RunResult cpu = Run(f, "cpu.txt", o);
  const RunResult resident = Run(f, "resident.txt", OnDevice(o, 2));
  CHECK(resident.stats.device_resident_pairs == cpu.stats.pairs);
  const RunResult streamed = Run(f, "streamed.txt", StreamedOnDevice(o, 2, cpu.stats));
  CHECK(streamed.stats.device_resident_pairs == 0);
  // Another order of the same pairs: other vectors, as good. Every epoch
  // trains all pairs, the loss falls, and ends near the streamed run's.
  REQUIRE(resident.stats.epochs.size() == o.epochs);
  CHECK(resident.vectors != streamed.vectors);
  for (size_t e = 0; e < o.epochs; ++e) {
    INFO("epoch " << e + 1);
    CHECK(resident.stats.epochs[e].pairs == cpu.stats.pairs);
    CHECK(resident.stats.epochs[e].updates == cpu.stats.pairs);
    if (e > 0) CHECK(resident.stats.epochs[e].loss < resident.stats.epochs[e - 1].loss);
  }
  CHECK(resident.stats.epochs.back().loss ==
        Approx(streamed.stats.epochs.back().loss).epsilon(0.05));

  // Streamed: skip-gram (its unit updates are drawn anew each epoch), a
  // sequential run (equal to the CPU's order), and a single epoch.
  TrainOptions sgns = o;
  sgns.objective = Objective::kSgns;
  sgns.subwords.chosen = true;
  CHECK(Run(f, "sgns.txt", OnDevice(sgns, 1)).stats.device_resident_pairs == 0);
  TrainOptions sequential = OnDevice(o, 1);
  sequential.device_sequential = true;
  CHECK(Run(f, "sequential.txt", sequential).stats.device_resident_pairs == 0);
  TrainOptions one = OnDevice(o, 1);
  one.epochs = 1;
  CHECK(Run(f, "one.txt", one).stats.device_resident_pairs == 0);

  // A cap below the parameters is one line naming it.
  TrainOptions tiny = OnDevice(o, 1);
  tiny.device_memory_bytes = 1 << 20;
  TrainStats stats;
  const Status s = Train(f.store, f.dir.path() + "/tiny.txt", tiny, &stats);
  INFO(s.ToString());
  CHECK(Contains(s, "do not fit in the 1.0 MiB that --device-memory allows on reference device"));
  TrainOptions cpu_cap = o;
  cpu_cap.device_memory_bytes = 1 << 20;
  CHECK(Contains(ValidateTrainOptions(cpu_cap), "--device-memory is for a device"));
}
