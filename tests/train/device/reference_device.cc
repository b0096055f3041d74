// A training device made of the CPU: streamglove's own models behind the
// device plugin interface (src/train/device/device_api.h), so that the host's
// side of a device — loading the plugin, staging slots, ranges, copies to the
// device and back, checkpoints across — is tested for real on a machine
// without a GPU. It trains the slots on a thread of its own, in the order
// submitted, one update at a time, while the host fills the next slot: a run
// equals a single-threaded CPU run bit for bit, whatever `sequential` says.
// A slot written by the host while it is submitted is an error (each slot's
// submitted pairs are checksummed, and checked again before they train).
// Resident pairs are kept in host memory, and a resident range's pairs are
// gathered in PairPermutation's order and trained as one CPU range.
//
// Test hooks, read when the library is asked for its table or probed:
//   STREAMGLOVE_REFERENCE_DEVICE_MEMORY      the free bytes reported (default 1 TiB)
//   STREAMGLOVE_REFERENCE_DEVICE_ABI         the interface version reported
//   STREAMGLOVE_REFERENCE_DEVICE_FAIL_AFTER  slots trained before a wait() fails
//   STREAMGLOVE_REFERENCE_DEVICE_DISCARD     1: pairs are counted, not trained (to
//                                            measure how fast the host feeds a device)

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "train/device/device_api.h"
#include "train/glove_model.h"
#include "train/pair_permutation.h"
#include "train/sgns_model.h"
#include "util/alias_table.h"

namespace {

using namespace streamglove;

uint64_t EnvNumber(const char* name, uint64_t otherwise) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::strtoull(v, nullptr, 10) : otherwise;
}

void CopyLine(const std::string& line, char* to, size_t size) {
  if (size == 0) return;
  const size_t n = std::min(line.size(), size - 1);
  std::memcpy(to, line.data(), n);
  to[n] = '\0';
}

}  // namespace

struct sg_device_session {
  std::unique_ptr<AliasTable> noise;  // SGNS's, before the model that points to it
  std::unique_ptr<EmbeddingModel> model;
  uint64_t slot_pairs = 0;
  std::vector<std::vector<TrainingPair>> slots;
  std::vector<std::vector<sg_device_range>> ranges;  // a slot's, as submitted
  std::vector<sg_device_totals> totals;              // a slot's, once trained
  std::vector<bool> pending;                         // submitted, not yet waited for
  std::vector<uint64_t> checksum;                    // a slot's submitted ranges'
  std::vector<bool> resident_order;                  // a slot's ranges are resident positions
  std::vector<uint64_t> order_seed;                  // of those positions' order
  std::vector<TrainingPair> resident;
  uint64_t resident_kept = 0;        // pairs kept so far
  uint64_t fail_after = UINT64_MAX;  // slots trained before failing
  uint64_t trained = 0;
  bool discard = false;

  std::mutex mu;
  std::condition_variable changed;
  std::deque<uint32_t> queue;  // submitted, not yet trained
  bool stop = false;
  std::string error;
  std::thread worker;

  // A hash of slot i's submitted pairs, 8 bytes at a time (0 when
  // discarding: the host's own speed is being measured).
  uint64_t Checksum(uint32_t i) const {
    if (discard || resident_order[i]) return 0;
    uint64_t h = 1469598103934665603ull;
    for (const sg_device_range& r : ranges[i]) {
      const TrainingPair* p = slots[i].data() + r.begin;
      for (size_t k = 0; k < r.end - r.begin; ++k) {
        uint64_t words[2];
        std::memcpy(words, p + k, sizeof words);
        h = (h ^ words[0]) * 1099511628211ull;
        h = (h ^ words[1]) * 1099511628211ull;
      }
    }
    return h;
  }

  // Trains slot i's ranges; a resident submission's pairs gathered in order.
  void TrainSlot(uint32_t i, RangeTotals* t) {
    std::vector<TrainingPair> gathered;
    const PairPermutation order(resident.size(), order_seed[i]);
    for (const sg_device_range& r : ranges[i]) {
      if (discard) {
        t->updates += r.end - r.begin;
        continue;
      }
      RangeContext context;
      context.progress_begin = r.progress_begin;
      context.progress_end = r.progress_end;
      context.seed = r.seed;
      const TrainingPair* pairs = slots[i].data() + r.begin;
      if (resident_order[i]) {
        gathered.clear();
        for (uint64_t p = r.begin; p < r.end; ++p) gathered.push_back(resident[order.Of(p)]);
        pairs = gathered.data();
      }
      model->TrainRange(pairs, r.end - r.begin, context, t);
    }
  }

  // Trains the queued slots in order until stopped.
  void Work() {
    std::unique_lock<std::mutex> lock(mu);
    for (;;) {
      changed.wait(lock, [&] { return stop || !queue.empty(); });
      if (stop) return;
      const uint32_t i = queue.front();
      lock.unlock();
      const bool intact = Checksum(i) == checksum[i];
      RangeTotals t;
      TrainSlot(i, &t);
      lock.lock();
      totals[i] = sg_device_totals{t.loss, t.updates, t.skipped};
      if (!intact && error.empty()) error = "reference device: a slot written while submitted";
      if (++trained > fail_after && error.empty()) error = "reference device: injected failure";
      queue.pop_front();
      changed.notify_all();
    }
  }
};

namespace {

int Probe(char* name, size_t name_size, uint64_t* free_bytes, char*, size_t) {
  CopyLine("reference device (the CPU, one thread)", name, name_size);
  *free_bytes = EnvNumber("STREAMGLOVE_REFERENCE_DEVICE_MEMORY", uint64_t{1} << 40);
  return 0;
}

sg_device_session* OpenSession(const sg_device_model* m, char* error, size_t error_size) {
  auto s = std::make_unique<sg_device_session>();
  const uint32_t want = m->objective == SG_DEVICE_SGNS ? 2 : 4;
  if (m->arrays != want || m->stride != RowStride(m->dim) || m->slots == 0) {
    CopyLine("reference device: a model it does not know", error, error_size);
    return nullptr;
  }
  if (m->objective == SG_DEVICE_SGNS) {
    s->noise = std::make_unique<AliasTable>(
        std::vector<uint32_t>(m->noise_threshold, m->noise_threshold + m->vocab),
        std::vector<uint32_t>(m->noise_alias, m->noise_alias + m->vocab));
    s->model = std::make_unique<SgnsModel>(m->vocab, m->dim, 0, SgnsHyper{m->eta, m->negatives},
                                           s->noise.get());
  } else {
    s->model = std::make_unique<GloveModel>(
        m->vocab, m->dim, 0, GloveHyper{m->eta, m->grad_clip, m->step_scale, m->decay_fraction});
  }
  s->slot_pairs = m->slot_pairs;
  s->slots.assign(m->slots, std::vector<TrainingPair>(m->slot_pairs));
  s->ranges.resize(m->slots);
  s->totals.resize(m->slots);
  s->pending.assign(m->slots, false);
  s->checksum.assign(m->slots, 0);
  s->resident_order.assign(m->slots, false);
  s->order_seed.assign(m->slots, 0);
  s->resident.resize(m->resident_pairs);
  s->fail_after = EnvNumber("STREAMGLOVE_REFERENCE_DEVICE_FAIL_AFTER", UINT64_MAX);
  s->discard = EnvNumber("STREAMGLOVE_REFERENCE_DEVICE_DISCARD", 0) == 1;
  s->worker = std::thread([session = s.get()] { session->Work(); });
  return s.release();
}

// Nothing may throw across the C interface.
sg_device_session* Open(const sg_device_model* m, char* error, size_t error_size) {
  try {
    return OpenSession(m, error, error_size);
  } catch (const std::exception& e) {
    CopyLine(std::string("reference device: ") + e.what(), error, error_size);
    return nullptr;
  }
}

void Close(sg_device_session* s) {
  {
    std::lock_guard<std::mutex> lock(s->mu);
    s->stop = true;
  }
  s->changed.notify_all();
  s->worker.join();
  delete s;
}

const char* Error(sg_device_session* s) {
  std::lock_guard<std::mutex> lock(s->mu);
  return s->error.c_str();
}

sg_device_pair* Slot(sg_device_session* s, uint32_t i) {
  // The slot's storage is TrainingPairs; the host writes it with memcpy.
  return reinterpret_cast<sg_device_pair*>(s->slots[i].data());
}

// Refuses while a slot trains: the parameters would race.
int Idle(sg_device_session* s) {
  std::lock_guard<std::mutex> lock(s->mu);
  if (!s->queue.empty()) {
    s->error = "reference device: parameters copied while slots train";
    return 1;
  }
  return 0;
}

int CopyArray(sg_device_session* s, uint32_t array, const float* from, float* to) {
  if (Idle(s) != 0) return 1;
  const std::vector<LargeArray<float>*> arrays = s->model->CheckpointArrays();
  if (array >= arrays.size()) {
    std::lock_guard<std::mutex> lock(s->mu);
    s->error = "reference device: no such parameter array";
    return 1;
  }
  const size_t bytes = arrays[array]->size() * sizeof(float);
  std::memcpy(to != nullptr ? to : arrays[array]->data(),
              from != nullptr ? from : arrays[array]->data(), bytes);
  return 0;
}

int WriteArray(sg_device_session* s, uint32_t array, const float* host) {
  return CopyArray(s, array, host, nullptr);
}

int ReadArray(sg_device_session* s, uint32_t array, float* host) {
  return CopyArray(s, array, nullptr, host);
}

// Queues slot i's ranges: over its buffer, or over the resident pairs'
// positions in the order of `order_seed`.
int Queue(sg_device_session* s, uint32_t i, const sg_device_range* ranges, uint32_t count,
          bool resident, uint64_t order_seed) {
  std::lock_guard<std::mutex> lock(s->mu);
  if (i >= s->slots.size() || s->pending[i]) {
    s->error = "reference device: a slot submitted twice";
    return 1;
  }
  if (resident && s->resident_kept != s->resident.size()) {
    s->error = "reference device: resident pairs trained before all were kept";
    return 1;
  }
  const uint64_t limit = resident ? s->resident.size() : s->slot_pairs;
  for (uint32_t r = 0; r < count; ++r) {
    if (ranges[r].begin > ranges[r].end || ranges[r].end > limit) {
      s->error = "reference device: a range outside its slot";
      return 1;
    }
  }
  s->ranges[i].assign(ranges, ranges + count);
  s->resident_order[i] = resident;
  s->order_seed[i] = order_seed;
  s->checksum[i] = s->Checksum(i);
  s->totals[i] = sg_device_totals{};
  s->pending[i] = true;
  s->queue.push_back(i);
  s->changed.notify_all();
  return 0;
}

int Submit(sg_device_session* s, uint32_t i, const sg_device_range* ranges, uint32_t count) {
  return Queue(s, i, ranges, count, /*resident=*/false, 0);
}

int SubmitResident(sg_device_session* s, uint32_t i, const sg_device_range* ranges, uint32_t count,
                   uint64_t order_seed) {
  return Queue(s, i, ranges, count, /*resident=*/true, order_seed);
}

// The host writes slot i only after wait(i): it may be read here.
int Keep(sg_device_session* s, uint32_t i, uint64_t at) {
  std::lock_guard<std::mutex> lock(s->mu);
  if (i >= s->slots.size() || !s->pending[i] || s->resident_order[i]) {
    s->error = "reference device: kept a slot not submitted";
    return 1;
  }
  const std::vector<sg_device_range>& r = s->ranges[i];
  const uint64_t begin = r.empty() ? 0 : r.front().begin, end = r.empty() ? 0 : r.back().end;
  if (at + (end - begin) > s->resident.size()) {
    s->error = "reference device: kept past the resident pairs";
    return 1;
  }
  std::copy(s->slots[i].begin() + begin, s->slots[i].begin() + end, s->resident.begin() + at);
  s->resident_kept += end - begin;
  return 0;
}

int Wait(sg_device_session* s, uint32_t i, sg_device_totals* totals) {
  std::unique_lock<std::mutex> lock(s->mu);
  s->changed.wait(lock,
                  [&] { return std::find(s->queue.begin(), s->queue.end(), i) == s->queue.end(); });
  *totals = s->pending[i] ? s->totals[i] : sg_device_totals{};
  s->pending[i] = false;
  return s->error.empty() ? 0 : 1;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) const sg_device_api* streamglove_device_api() {
  static sg_device_api api = {SG_DEVICE_ABI_VERSION,
                              Probe,
                              Open,
                              Close,
                              Error,
                              Slot,
                              WriteArray,
                              ReadArray,
                              Submit,
                              Wait,
                              Keep,
                              SubmitResident};
  api.abi_version =
      static_cast<uint32_t>(EnvNumber("STREAMGLOVE_REFERENCE_DEVICE_ABI", SG_DEVICE_ABI_VERSION));
  return &api;
}
