// A stand-in for the NVIDIA driver's libcuda.so.1, loaded by the CUDA plugin
// in place of the real one ($STREAMGLOVE_CUDA_DRIVER), so that the plugin's
// host code — the driver's loading, the device's checks, every error path —
// is tested on machines without a GPU. Memory is the host's; kernels are
// looked up in the PTX the plugin loads (so a kernel name the PTX lacks
// fails as it would on a GPU) and launches do nothing.
//
// Behaviour, from the environment:
//   FAKE_CUDA_DEVICES     devices reported (default 1)
//   FAKE_CUDA_CC          compute capability, as major * 10 + minor (default 90)
//   FAKE_CUDA_FAIL        the name of a call that fails (e.g. cuMemAlloc_v2)
//   FAKE_CUDA_RESULT      the CUresult it fails with (default 2, out of memory)
//   FAKE_CUDA_FAIL_AFTER  calls of it that succeed first (default 0)
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

namespace {

typedef int CUresult;

std::mutex mu;
std::map<std::string, long> calls;  // per call name, so far
std::string module_ptx;             // the last PTX loaded

long EnvNumber(const char* name, long otherwise) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::strtol(v, nullptr, 10) : otherwise;
}

// The result `call` returns this time: 0, or the injected failure.
CUresult Result(const char* call) {
  std::lock_guard<std::mutex> lock(mu);
  const char* fail = std::getenv("FAKE_CUDA_FAIL");
  if (fail == nullptr || std::strcmp(fail, call) != 0) return 0;
  if (calls[call]++ < EnvNumber("FAKE_CUDA_FAIL_AFTER", 0)) return 0;
  return static_cast<CUresult>(EnvNumber("FAKE_CUDA_RESULT", 2));
}

const char* ErrorName(CUresult r) {
  switch (r) {
    case 2:
      return "CUDA_ERROR_OUT_OF_MEMORY";
    case 35:
      return "CUDA_ERROR_INSUFFICIENT_DRIVER";
    case 100:
      return "CUDA_ERROR_NO_DEVICE";
    case 218:
      return "CUDA_ERROR_INVALID_PTX";
    case 222:
      return "CUDA_ERROR_UNSUPPORTED_PTX_VERSION";
    case 500:
      return "CUDA_ERROR_NOT_FOUND";
    case 719:
      return "CUDA_ERROR_LAUNCH_FAILED";
    default:
      return nullptr;
  }
}

}  // namespace

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))

FAKE_EXPORT CUresult cuInit(unsigned) { return Result("cuInit"); }
FAKE_EXPORT CUresult cuDriverGetVersion(int* v) {
  *v = 12040;
  return 0;
}
FAKE_EXPORT CUresult cuGetErrorName(CUresult r, const char** s) {
  *s = ErrorName(r);
  return *s != nullptr ? 0 : 1;
}
FAKE_EXPORT CUresult cuGetErrorString(CUresult r, const char** s) {
  *s = r == 2 ? "out of memory" : r == 719 ? "unspecified launch failure" : nullptr;
  return *s != nullptr ? 0 : 1;
}
FAKE_EXPORT CUresult cuDeviceGetCount(int* n) {
  *n = static_cast<int>(EnvNumber("FAKE_CUDA_DEVICES", 1));
  return Result("cuDeviceGetCount");
}
FAKE_EXPORT CUresult cuDeviceGet(int* d, int i) {
  *d = i;
  return Result("cuDeviceGet");
}
FAKE_EXPORT CUresult cuDeviceGetName(char* name, int size, int) {
  std::strncpy(name, "Fake GPU", static_cast<size_t>(size));
  return Result("cuDeviceGetName");
}
FAKE_EXPORT CUresult cuDeviceGetAttribute(int* v, int attribute, int) {
  const long cc = EnvNumber("FAKE_CUDA_CC", 90);
  *v = attribute == 75   ? static_cast<int>(cc / 10)
       : attribute == 76 ? static_cast<int>(cc % 10)
                         : 4;
  return Result("cuDeviceGetAttribute");
}
FAKE_EXPORT CUresult cuDevicePrimaryCtxRetain(void** ctx, int) {
  static int context;
  *ctx = &context;
  return Result("cuDevicePrimaryCtxRetain");
}
FAKE_EXPORT CUresult cuDevicePrimaryCtxRelease_v2(int) { return 0; }
FAKE_EXPORT CUresult cuCtxSetCurrent(void*) { return Result("cuCtxSetCurrent"); }
FAKE_EXPORT CUresult cuCtxSynchronize() { return Result("cuCtxSynchronize"); }
FAKE_EXPORT CUresult cuMemGetInfo_v2(size_t* free, size_t* total) {
  *free = static_cast<size_t>(EnvNumber("FAKE_CUDA_FREE", 1L << 34));
  *total = *free;
  return Result("cuMemGetInfo_v2");
}
FAKE_EXPORT CUresult cuModuleLoadDataEx(void** module, const void* ptx, unsigned, int*, void**) {
  static int m;
  *module = &m;
  if (const CUresult r = Result("cuModuleLoadDataEx"); r != 0) return r;
  std::lock_guard<std::mutex> lock(mu);
  module_ptx = static_cast<const char*>(ptx);
  return 0;
}
FAKE_EXPORT CUresult cuModuleUnload(void*) { return 0; }
FAKE_EXPORT CUresult cuModuleGetFunction(void** f, void*, const char* name) {
  static int function;
  *f = &function;
  std::lock_guard<std::mutex> lock(mu);
  return module_ptx.find(".entry " + std::string(name) + "(") != std::string::npos ? 0 : 500;
}
FAKE_EXPORT CUresult cuMemAlloc_v2(unsigned long long* p, size_t bytes) {
  if (const CUresult r = Result("cuMemAlloc_v2"); r != 0) return r;
  *p = reinterpret_cast<unsigned long long>(std::calloc(bytes, 1));
  return 0;
}
FAKE_EXPORT CUresult cuMemFree_v2(unsigned long long p) {
  std::free(reinterpret_cast<void*>(p));
  return 0;
}
FAKE_EXPORT CUresult cuMemAllocHost_v2(void** p, size_t bytes) {
  if (const CUresult r = Result("cuMemAllocHost_v2"); r != 0) return r;
  *p = std::calloc(bytes, 1);
  return 0;
}
FAKE_EXPORT CUresult cuMemFreeHost(void* p) {
  std::free(p);
  return 0;
}
FAKE_EXPORT CUresult cuMemcpyHtoD_v2(unsigned long long to, const void* from, size_t n) {
  std::memcpy(reinterpret_cast<void*>(to), from, n);
  return Result("cuMemcpyHtoD_v2");
}
FAKE_EXPORT CUresult cuMemcpyDtoH_v2(void* to, unsigned long long from, size_t n) {
  std::memcpy(to, reinterpret_cast<const void*>(from), n);
  return Result("cuMemcpyDtoH_v2");
}
FAKE_EXPORT CUresult cuMemcpyHtoDAsync_v2(unsigned long long to, const void* from, size_t n,
                                          void*) {
  std::memcpy(reinterpret_cast<void*>(to), from, n);
  return 0;
}
FAKE_EXPORT CUresult cuMemcpyDtoHAsync_v2(void* to, unsigned long long from, size_t n, void*) {
  std::memcpy(to, reinterpret_cast<const void*>(from), n);
  return 0;
}
FAKE_EXPORT CUresult cuMemsetD8Async(unsigned long long p, unsigned char v, size_t n, void*) {
  std::memset(reinterpret_cast<void*>(p), v, n);
  return 0;
}
FAKE_EXPORT CUresult cuStreamCreate(void** s, unsigned) {
  static int stream;
  *s = &stream;
  return Result("cuStreamCreate");
}
FAKE_EXPORT CUresult cuStreamDestroy_v2(void*) { return 0; }
FAKE_EXPORT CUresult cuStreamSynchronize(void*) { return Result("cuStreamSynchronize"); }
FAKE_EXPORT CUresult cuStreamWaitEvent(void*, void*, unsigned) { return 0; }
FAKE_EXPORT CUresult cuEventCreate(void** e, unsigned) {
  static int event;
  *e = &event;
  return 0;
}
FAKE_EXPORT CUresult cuEventRecord(void*, void*) { return 0; }
FAKE_EXPORT CUresult cuEventDestroy_v2(void*) { return 0; }
FAKE_EXPORT CUresult cuLaunchKernel(void*, unsigned, unsigned, unsigned, unsigned, unsigned,
                                    unsigned, unsigned, void*, void**, void**) {
  return Result("cuLaunchKernel");
}
