// libstreamglove_cuda.so: the training device plugin (train/device/
// device_api.h) for NVIDIA GPUs, through the CUDA driver API opened at run
// time (cuda_driver.h) and kernels compiled to PTX at build time
// (kernels.cu), which the driver compiles for its GPU when the session opens.
//
// A session holds the model's arrays in device memory and, per staging slot,
// pinned host pairs, their device copy, the slot's ranges, its totals and a
// stream. submit() queues on the slot's stream: the copies of its pairs and
// ranges, a wait for the kernel of the slot submitted before it, its own
// kernel, and the copy of its totals back. So copies overlap the previous
// slot's training while kernels run in the order submitted. With resident
// pairs, keep() queues one more copy of a submitted slot's pinned pairs, into
// the resident array, and submit_resident() queues a kernel alone, which
// reads the resident pairs in the epoch's order (train/pair_permutation.h).

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "train/device/cuda/cuda_driver.h"
#include "train/device/cuda/kernel_args.h"
#include "train/device/device_api.h"

// The kernels' PTX, embedded at build time (ptx_blob.cc), ending in a NUL.
extern "C" const char sg_cuda_kernels_ptx[];

namespace streamglove {
namespace {

// What the kernels add up for a slot, as laid out in device memory.
struct SlotTotals {
  double loss;
  unsigned long long skipped;
};

struct CudaSlot {
  sg_device_pair* host_pairs = nullptr;  // pinned
  CUdeviceptr pairs = 0;
  KernelRange* host_ranges = nullptr;  // pinned, range_capacity of them
  CUdeviceptr ranges = 0;
  uint32_t range_capacity = 0;
  SlotTotals* host_totals = nullptr;  // pinned
  CUdeviceptr totals = 0;
  CUstream stream = nullptr;
  CUevent trained = nullptr;    // recorded after the slot's kernel
  uint64_t updates = 0;         // of the work submitted
  uint64_t begin = 0, end = 0;  // the pairs of the slot's submission
  bool pending = false;         // submitted, not yet waited for
  bool resident = false;        // its ranges are resident positions
};

void CopyLine(const std::string& line, char* to, size_t size) {
  if (size == 0) return;
  const size_t n = std::min(line.size(), size - 1);
  std::memcpy(to, line.data(), n);
  to[n] = '\0';
}

// The kernels' version for `dim`: the fewest components per lane.
uint32_t PerLaneFor(uint32_t dim) {
  for (uint32_t p : kKernelPerLane) {
    if (dim <= kKernelLanes * p) return p;
  }
  return 0;
}

}  // namespace
}  // namespace streamglove

using namespace streamglove;

struct sg_device_session {
  const CudaDriver* cu = nullptr;
  CUdevice device = 0;
  CUcontext context = nullptr;
  CUmodule module = nullptr;
  CUfunction kernel = nullptr;
  uint32_t multiprocessors = 1;
  uint64_t warps = 1;       // updating at once (not sequential)
  sg_device_model model{};  // without the noise pointers, valid only in open()
  std::vector<CUdeviceptr> arrays;
  size_t array_bytes = 0;
  CUdeviceptr noise_threshold = 0, noise_alias = 0;
  CUdeviceptr resident = 0;    // model.resident_pairs pairs
  uint64_t resident_kept = 0;  // of them, copied so far
  std::vector<CudaSlot> slots;
  CUevent last_trained = nullptr;  // the event of the slot submitted last
  std::string error;

  // True if `result` is success; else the error line is kept.
  bool Ok(CUresult result, const char* call) {
    if (result == kCudaSuccess) return true;
    if (error.empty()) error = "cuda: " + cu->Describe(call, result);
    return false;
  }
  bool Fail(const std::string& line) {
    if (error.empty()) error = "cuda: " + line;
    return false;
  }
  bool MakeCurrent() { return Ok(cu->cuCtxSetCurrent(context), "cuCtxSetCurrent"); }

  bool LoadKernels();
  bool AllocateModel();
  bool AllocateSlot(CudaSlot* slot);
  bool GrowRanges(CudaSlot* slot, uint32_t count);
  // The slot's kernel over `total` pairs: of its own buffer, or of the
  // resident pairs in the order of `order_seed`.
  bool Launch(CudaSlot* slot, uint64_t total, uint32_t range_count, uint64_t order_seed);
  // Frees everything (after finishing the work queued).
  void Release();
};

bool sg_device_session::LoadKernels() {
  char log[2048] = "";
  int options[] = {kCudaJitErrorLogBuffer, kCudaJitErrorLogBufferSizeBytes};
  void* values[] = {log, reinterpret_cast<void*>(sizeof log)};
  const CUresult loaded = cu->cuModuleLoadDataEx(&module, sg_cuda_kernels_ptx, 2, options, values);
  if (loaded == kCudaErrorUnsupportedPtxVersion) {
    return Fail("the NVIDIA driver (CUDA " + std::to_string(cu->version / 1000) + "." +
                std::to_string(cu->version % 1000 / 10) +
                ") is too old for the kernels' PTX 7.0: CUDA 11.0 or later is needed");
  }
  if (loaded != kCudaSuccess) {
    std::string first_line(log, std::find(log, log + std::strlen(log), '\n'));
    return Fail(cu->Describe("cuModuleLoadDataEx", loaded) +
                (first_line.empty() ? "" : ": " + first_line));
  }
  const uint32_t per_lane = PerLaneFor(model.dim);
  const std::string name =
      std::string(model.objective == SG_DEVICE_SGNS ? "sg_sgns_" : "sg_glove_") +
      std::to_string(per_lane);
  return Ok(cu->cuModuleGetFunction(&kernel, module, name.c_str()), "cuModuleGetFunction");
}

bool sg_device_session::AllocateModel() {
  array_bytes = size_t{model.vocab} * model.stride * sizeof(float);
  arrays.assign(model.arrays, 0);
  for (CUdeviceptr& a : arrays) {
    if (!Ok(cu->cuMemAlloc(&a, array_bytes), "cuMemAlloc (parameters)")) return false;
  }
  if (model.objective != SG_DEVICE_SGNS) return true;
  const size_t table_bytes = size_t{model.vocab} * sizeof(uint32_t);
  return Ok(cu->cuMemAlloc(&noise_threshold, table_bytes), "cuMemAlloc (noise table)") &&
         Ok(cu->cuMemAlloc(&noise_alias, table_bytes), "cuMemAlloc (noise table)");
}

bool sg_device_session::AllocateSlot(CudaSlot* slot) {
  const size_t pair_bytes = model.slot_pairs * sizeof(sg_device_pair);
  void* pinned = nullptr;
  if (!Ok(cu->cuMemAllocHost(&pinned, pair_bytes), "cuMemAllocHost (staging slot)")) return false;
  slot->host_pairs = static_cast<sg_device_pair*>(pinned);
  if (!Ok(cu->cuMemAlloc(&slot->pairs, pair_bytes), "cuMemAlloc (staging slot)")) return false;
  if (!Ok(cu->cuMemAllocHost(&pinned, sizeof(SlotTotals)), "cuMemAllocHost (totals)")) return false;
  slot->host_totals = static_cast<SlotTotals*>(pinned);
  if (!Ok(cu->cuMemAlloc(&slot->totals, sizeof(SlotTotals)), "cuMemAlloc (totals)")) return false;
  if (!GrowRanges(slot, 256)) return false;
  return Ok(cu->cuStreamCreate(&slot->stream, kCudaStreamNonBlocking), "cuStreamCreate") &&
         Ok(cu->cuEventCreate(&slot->trained, kCudaEventDisableTiming), "cuEventCreate");
}

// Room for `count` ranges; called only while the slot is not pending.
bool sg_device_session::GrowRanges(CudaSlot* slot, uint32_t count) {
  if (count <= slot->range_capacity) return true;
  const uint32_t capacity = std::max(count, 2 * slot->range_capacity);
  if (slot->host_ranges != nullptr) cu->cuMemFreeHost(slot->host_ranges);
  if (slot->ranges != 0) cu->cuMemFree(slot->ranges);
  slot->host_ranges = nullptr;
  slot->ranges = 0;
  slot->range_capacity = 0;
  void* pinned = nullptr;
  const size_t bytes = size_t{capacity} * sizeof(KernelRange);
  if (!Ok(cu->cuMemAllocHost(&pinned, bytes), "cuMemAllocHost (ranges)")) return false;
  slot->host_ranges = static_cast<KernelRange*>(pinned);
  if (!Ok(cu->cuMemAlloc(&slot->ranges, bytes), "cuMemAlloc (ranges)")) return false;
  slot->range_capacity = capacity;
  return true;
}

bool sg_device_session::Launch(CudaSlot* slot, uint64_t total, uint32_t range_count,
                               uint64_t order_seed) {
  const KernelPairs in{
      reinterpret_cast<const sg_device_pair*>(slot->resident ? resident : slot->pairs),
      reinterpret_cast<const KernelRange*>(slot->ranges),
      total,
      range_count,
      0,
      reinterpret_cast<double*>(slot->totals),
      reinterpret_cast<unsigned long long*>(slot->totals + sizeof(double)),
      slot->resident ? model.resident_pairs : 0,
      order_seed};
  GloveKernelArgs glove{};
  SgnsKernelArgs sgns{};
  void* args[1];
  if (model.objective == SG_DEVICE_SGNS) {
    sgns = SgnsKernelArgs{in,
                          reinterpret_cast<float*>(arrays[0]),
                          reinterpret_cast<float*>(arrays[1]),
                          reinterpret_cast<const uint32_t*>(noise_threshold),
                          reinterpret_cast<const uint32_t*>(noise_alias),
                          model.dim,
                          model.stride,
                          model.vocab,
                          model.negatives,
                          model.eta,
                          0};
    args[0] = &sgns;
  } else {
    glove = GloveKernelArgs{in,
                            reinterpret_cast<float*>(arrays[0]),
                            reinterpret_cast<float*>(arrays[1]),
                            reinterpret_cast<float*>(arrays[2]),
                            reinterpret_cast<float*>(arrays[3]),
                            model.dim,
                            model.stride,
                            model.eta,
                            model.grad_clip,
                            model.step_scale,
                            model.decay_fraction};
    args[0] = &glove;
  }
  // Sequential: one warp takes every pair in order. Otherwise `warps` warps
  // in blocks of up to 8, each taking one pair after another.
  constexpr uint64_t kWarpsPerBlock = 8;
  unsigned grid = 1, block = kKernelLanes;
  if (model.sequential == 0) {
    const uint64_t useful = std::max<uint64_t>(1, std::min<uint64_t>(warps, total));
    block = static_cast<unsigned>(std::min(useful, kWarpsPerBlock) * kKernelLanes);
    grid = static_cast<unsigned>((useful + kWarpsPerBlock - 1) / kWarpsPerBlock);
  }
  return Ok(cu->cuLaunchKernel(kernel, grid, 1, 1, block, 1, 1, 0, slot->stream, args, nullptr),
            "cuLaunchKernel");
}

void sg_device_session::Release() {
  if (context == nullptr) return;
  if (cu->cuCtxSetCurrent(context) == kCudaSuccess) cu->cuCtxSynchronize();
  for (CudaSlot& s : slots) {
    if (s.trained != nullptr) cu->cuEventDestroy(s.trained);
    if (s.stream != nullptr) cu->cuStreamDestroy(s.stream);
    for (CUdeviceptr p : {s.pairs, s.ranges, s.totals}) {
      if (p != 0) cu->cuMemFree(p);
    }
    for (void* p : {static_cast<void*>(s.host_pairs), static_cast<void*>(s.host_ranges),
                    static_cast<void*>(s.host_totals)}) {
      if (p != nullptr) cu->cuMemFreeHost(p);
    }
  }
  slots.clear();
  for (CUdeviceptr p : arrays) {
    if (p != 0) cu->cuMemFree(p);
  }
  arrays.clear();
  for (CUdeviceptr p : {noise_threshold, noise_alias, resident}) {
    if (p != 0) cu->cuMemFree(p);
  }
  if (module != nullptr) cu->cuModuleUnload(module);
  cu->cuDevicePrimaryCtxRelease(device);
  context = nullptr;
}

namespace {

// The first device's name and compute capability, with the context
// retained and made current; false with *error.
bool OpenDevice(const CudaDriver* cu, CUdevice* device, CUcontext* context, std::string* name,
                uint32_t* multiprocessors, std::string* error) {
  int count = 0;
  if (cu->cuDeviceGetCount(&count) != kCudaSuccess || count == 0) {
    *error = "no CUDA device (the driver sees none)";
    return false;
  }
  char text[256] = "";
  int major = 0, minor = 0, sms = 0;
  CUresult r = cu->cuDeviceGet(device, 0);
  if (r == kCudaSuccess) r = cu->cuDeviceGetName(text, sizeof text, *device);
  if (r == kCudaSuccess) {
    r = cu->cuDeviceGetAttribute(&major, kCudaAttributeComputeCapabilityMajor, *device);
  }
  if (r == kCudaSuccess) {
    r = cu->cuDeviceGetAttribute(&minor, kCudaAttributeComputeCapabilityMinor, *device);
  }
  if (r == kCudaSuccess) {
    r = cu->cuDeviceGetAttribute(&sms, kCudaAttributeMultiprocessorCount, *device);
  }
  if (r != kCudaSuccess) {
    *error = cu->Describe("cuDeviceGetAttribute", r);
    return false;
  }
  *name = std::string(text) + " (sm_" + std::to_string(major) + std::to_string(minor) + ", " +
          std::to_string(sms) + " multiprocessors, CUDA driver " +
          std::to_string(cu->version / 1000) + "." + std::to_string(cu->version % 1000 / 10) + ")";
  *multiprocessors = static_cast<uint32_t>(std::max(sms, 1));
  if (major < 8) {
    *error = *name +
             " is older than the kernels' sm_80 (compute capability 8.0 or later is "
             "needed)";
    return false;
  }
  r = cu->cuDevicePrimaryCtxRetain(context, *device);
  if (r != kCudaSuccess) {
    *error = cu->Describe("cuDevicePrimaryCtxRetain", r);
    return false;
  }
  r = cu->cuCtxSetCurrent(*context);
  if (r != kCudaSuccess) {
    cu->cuDevicePrimaryCtxRelease(*device);
    *error = cu->Describe("cuCtxSetCurrent", r);
    return false;
  }
  return true;
}

// How many warps update at once. GloVe: 64 per multiprocessor, which fill
// it (2,048 threads); its AdaGrad steps shrink on frequent rows, and its
// vectors equal the CPU's. Skip-gram: one per multiprocessor. Its plain SGD
// steps on frequent rows (noise words above all) add up when thousands of
// updates read a row at once: on wiki100M (dim 100, 2 epochs, H100) 8,448
// warps gave 17.98% analogy against the CPU's 22.20%, 132 warps 22.24%, at
// 87% of the rate (docs/gpu.md). $STREAMGLOVE_CUDA_WARPS overrides (for
// measuring).
uint64_t ConcurrentWarps(uint32_t objective, uint32_t multiprocessors) {
  if (const char* v = std::getenv("STREAMGLOVE_CUDA_WARPS"); v != nullptr && *v != '\0') {
    return std::max<uint64_t>(1, std::strtoull(v, nullptr, 10));
  }
  return uint64_t{multiprocessors} * (objective == SG_DEVICE_SGNS ? 1 : 64);
}

int Probe(char* name, size_t name_size, uint64_t* free_bytes, char* error, size_t error_size) {
  std::string why, device_name;
  const CudaDriver* cu = CudaDriver::Get(&why);
  CUdevice device = 0;
  CUcontext context = nullptr;
  uint32_t sms = 0;
  if (cu == nullptr || !OpenDevice(cu, &device, &context, &device_name, &sms, &why)) {
    CopyLine(why, error, error_size);
    return 1;
  }
  size_t free = 0, total = 0;
  const CUresult r = cu->cuMemGetInfo(&free, &total);
  cu->cuDevicePrimaryCtxRelease(device);
  if (r != kCudaSuccess) {
    CopyLine(cu->Describe("cuMemGetInfo", r), error, error_size);
    return 1;
  }
  CopyLine(device_name, name, name_size);
  *free_bytes = free;
  return 0;
}

// Sets up `m` on the session's device: false, with s->error saying why, if it cannot.
bool OpenSession(sg_device_session* s, const sg_device_model* m) {
  const uint32_t arrays = m->objective == SG_DEVICE_SGNS ? 2 : 4;
  if (m->arrays != arrays || m->slots == 0 || m->slot_pairs == 0 || PerLaneFor(m->dim) == 0) {
    return s->Fail("a model the plugin does not know (arrays " + std::to_string(m->arrays) +
                   ", dim " + std::to_string(m->dim) + ")");
  }
  s->model = *m;
  s->model.noise_threshold = s->model.noise_alias = nullptr;
  s->warps = ConcurrentWarps(m->objective, s->multiprocessors);
  if (!s->LoadKernels() || !s->AllocateModel()) return false;
  if (m->objective == SG_DEVICE_SGNS) {
    const size_t table_bytes = size_t{m->vocab} * sizeof(uint32_t);
    if (!s->Ok(s->cu->cuMemcpyHtoD(s->noise_threshold, m->noise_threshold, table_bytes),
               "cuMemcpyHtoD (noise table)") ||
        !s->Ok(s->cu->cuMemcpyHtoD(s->noise_alias, m->noise_alias, table_bytes),
               "cuMemcpyHtoD (noise table)")) {
      return false;
    }
  }
  if (m->resident_pairs > 0 &&
      !s->Ok(s->cu->cuMemAlloc(&s->resident, m->resident_pairs * sizeof(sg_device_pair)),
             "cuMemAlloc (resident pairs)")) {
    return false;
  }
  s->slots.resize(m->slots);
  for (CudaSlot& slot : s->slots) {
    if (!s->AllocateSlot(&slot)) return false;
  }
  return true;
}

sg_device_session* Open(const sg_device_model* m, char* error, size_t error_size) {
  std::string why, name;
  const CudaDriver* cu = CudaDriver::Get(&why);
  auto* s = new sg_device_session;
  s->cu = cu;
  if (cu == nullptr || !OpenDevice(cu, &s->device, &s->context, &name, &s->multiprocessors, &why)) {
    CopyLine(why, error, error_size);
    delete s;
    return nullptr;
  }
  if (!OpenSession(s, m)) {
    CopyLine(s->error, error, error_size);
    s->Release();
    delete s;
    return nullptr;
  }
  return s;
}

void Close(sg_device_session* s) {
  s->Release();
  delete s;
}

const char* Error(sg_device_session* s) { return s->error.c_str(); }

sg_device_pair* Slot(sg_device_session* s, uint32_t i) { return s->slots[i].host_pairs; }

// Whole arrays, between submissions: the context is synchronised first.
int CopyArray(sg_device_session* s, uint32_t array, const float* from, float* to) {
  if (!s->error.empty()) return 1;
  if (array >= s->arrays.size()) return s->Fail("no parameter array " + std::to_string(array)), 1;
  if (!s->MakeCurrent() || !s->Ok(s->cu->cuCtxSynchronize(), "cuCtxSynchronize")) return 1;
  const bool ok = from != nullptr
                      ? s->Ok(s->cu->cuMemcpyHtoD(s->arrays[array], from, s->array_bytes),
                              "cuMemcpyHtoD (parameters)")
                      : s->Ok(s->cu->cuMemcpyDtoH(to, s->arrays[array], s->array_bytes),
                              "cuMemcpyDtoH (parameters)");
  return ok ? 0 : 1;
}

int WriteArray(sg_device_session* s, uint32_t array, const float* host) {
  return CopyArray(s, array, host, nullptr);
}

int ReadArray(sg_device_session* s, uint32_t array, float* host) {
  return CopyArray(s, array, nullptr, host);
}

// Queues slot i's ranges: over its pairs, copied first, or with
// `resident` over the resident pairs' positions in the order of `order_seed`.
int Queue(sg_device_session* s, uint32_t i, const sg_device_range* ranges, uint32_t count,
          bool resident, uint64_t order_seed) {
  if (!s->error.empty()) return 1;
  if (i >= s->slots.size() || s->slots[i].pending) return s->Fail("a slot submitted twice"), 1;
  if (resident && s->resident_kept != s->model.resident_pairs) {
    return s->Fail("resident pairs trained before all were kept"), 1;
  }
  CudaSlot& slot = s->slots[i];
  if (!s->MakeCurrent() || !s->GrowRanges(&slot, std::max(count, 1u))) return 1;
  const uint64_t limit = resident ? s->model.resident_pairs : s->model.slot_pairs;
  uint64_t total = 0;
  for (uint32_t r = 0; r < count; ++r) {
    if (ranges[r].begin > ranges[r].end || ranges[r].end > limit ||
        (r > 0 && ranges[r].begin < ranges[r - 1].end)) {
      return s->Fail("ranges out of order or outside their slot"), 1;
    }
    const uint64_t n = ranges[r].end - ranges[r].begin;
    slot.host_ranges[r] =
        KernelRange{ranges[r].begin,        total,         n, ranges[r].progress_begin,
                    ranges[r].progress_end, ranges[r].seed};
    total += n;
  }
  slot.updates = total;
  slot.begin = count > 0 ? ranges[0].begin : 0;
  slot.end = count > 0 ? ranges[count - 1].end : 0;
  slot.pending = true;
  slot.resident = resident;
  CUstream stream = slot.stream;
  const CudaDriver* cu = s->cu;
  bool ok =
      s->Ok(cu->cuMemsetD8Async(slot.totals, 0, sizeof(SlotTotals), stream), "cuMemsetD8Async");
  if (ok && total > 0) {
    if (!resident) {
      ok = s->Ok(cu->cuMemcpyHtoDAsync(slot.pairs + slot.begin * sizeof(sg_device_pair),
                                       slot.host_pairs + slot.begin,
                                       (slot.end - slot.begin) * sizeof(sg_device_pair), stream),
                 "cuMemcpyHtoDAsync (pairs)");
    }
    ok = ok && s->Ok(cu->cuMemcpyHtoDAsync(slot.ranges, slot.host_ranges,
                                           count * sizeof(KernelRange), stream),
                     "cuMemcpyHtoDAsync (ranges)");
    // After the kernel of the slot submitted before: slots train in order.
    if (ok && s->last_trained != nullptr) {
      ok = s->Ok(cu->cuStreamWaitEvent(stream, s->last_trained, 0), "cuStreamWaitEvent");
    }
    ok = ok && s->Launch(&slot, total, count, order_seed) &&
         s->Ok(cu->cuEventRecord(slot.trained, stream), "cuEventRecord");
    if (ok) s->last_trained = slot.trained;
  }
  ok = ok && s->Ok(cu->cuMemcpyDtoHAsync(slot.host_totals, slot.totals, sizeof(SlotTotals), stream),
                   "cuMemcpyDtoHAsync (totals)");
  return ok ? 0 : 1;
}

int Submit(sg_device_session* s, uint32_t i, const sg_device_range* ranges, uint32_t count) {
  return Queue(s, i, ranges, count, /*resident=*/false, 0);
}

int SubmitResident(sg_device_session* s, uint32_t i, const sg_device_range* ranges, uint32_t count,
                   uint64_t order_seed) {
  return Queue(s, i, ranges, count, /*resident=*/true, order_seed);
}

// From the pinned pairs, on the slot's stream: the host writes them again
// only after wait(i), which waits for this copy too.
int Keep(sg_device_session* s, uint32_t i, uint64_t at) {
  if (!s->error.empty()) return 1;
  if (i >= s->slots.size() || !s->slots[i].pending || s->slots[i].resident) {
    return s->Fail("kept a slot not submitted"), 1;
  }
  CudaSlot& slot = s->slots[i];
  const uint64_t n = slot.end - slot.begin;
  if (at + n > s->model.resident_pairs) return s->Fail("kept past the resident pairs"), 1;
  if (n == 0) return 0;
  if (!s->MakeCurrent() ||
      !s->Ok(s->cu->cuMemcpyHtoDAsync(s->resident + at * sizeof(sg_device_pair),
                                      slot.host_pairs + slot.begin, n * sizeof(sg_device_pair),
                                      slot.stream),
             "cuMemcpyHtoDAsync (resident pairs)")) {
    return 1;
  }
  s->resident_kept += n;
  return 0;
}

int Wait(sg_device_session* s, uint32_t i, sg_device_totals* totals) {
  *totals = sg_device_totals{};
  if (i >= s->slots.size()) return s->Fail("no slot " + std::to_string(i)), 1;
  CudaSlot& slot = s->slots[i];
  if (!slot.pending) return s->error.empty() ? 0 : 1;
  slot.pending = false;
  if (!s->MakeCurrent() || !s->Ok(s->cu->cuStreamSynchronize(slot.stream), "cuStreamSynchronize")) {
    return 1;
  }
  *totals = sg_device_totals{slot.host_totals->loss, slot.updates, slot.host_totals->skipped};
  return s->error.empty() ? 0 : 1;
}

// Nothing may throw across the C interface: a failed allocation of the
// host's own (a few bytes) ends the process as it would anywhere else.
const sg_device_api kApi = {SG_DEVICE_ABI_VERSION,
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

}  // namespace

extern "C" __attribute__((visibility("default"))) const sg_device_api* streamglove_device_api(
    void) {
  return &kApi;
}
