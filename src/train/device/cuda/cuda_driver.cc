#include "train/device/cuda/cuda_driver.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <type_traits>

namespace streamglove {

namespace {

constexpr char kDriverLibrary[] = "libcuda.so.1";

// Opens the driver and fills the table; *error says why not.
bool Load(CudaDriver* d, std::string* error) {
  const char* named = std::getenv("STREAMGLOVE_CUDA_DRIVER");
  const std::string library = named != nullptr && *named != '\0' ? named : kDriverLibrary;
  // Never closed: the driver's threads outlive any unload.
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (handle == nullptr) {
    const char* why = dlerror();
    *error = "no NVIDIA driver: " + library + " cannot be loaded (" +
             (why != nullptr ? why : "unknown dlopen error") + ")";
    return false;
  }
  std::string missing;
  // POSIX guarantees dlsym's void* converts to a function pointer.
  const auto bind = [&](auto* function, const char* name) {
    *function = reinterpret_cast<std::remove_pointer_t<decltype(function)>>(dlsym(handle, name));
    if (*function == nullptr && missing.empty()) missing = name;
  };
  bind(&d->cuInit, "cuInit");
  bind(&d->cuDriverGetVersion, "cuDriverGetVersion");
  bind(&d->cuGetErrorName, "cuGetErrorName");
  bind(&d->cuGetErrorString, "cuGetErrorString");
  bind(&d->cuDeviceGetCount, "cuDeviceGetCount");
  bind(&d->cuDeviceGet, "cuDeviceGet");
  bind(&d->cuDeviceGetName, "cuDeviceGetName");
  bind(&d->cuDeviceGetAttribute, "cuDeviceGetAttribute");
  bind(&d->cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  bind(&d->cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2");
  bind(&d->cuCtxSetCurrent, "cuCtxSetCurrent");
  bind(&d->cuCtxSynchronize, "cuCtxSynchronize");
  bind(&d->cuMemGetInfo, "cuMemGetInfo_v2");
  bind(&d->cuModuleLoadDataEx, "cuModuleLoadDataEx");
  bind(&d->cuModuleUnload, "cuModuleUnload");
  bind(&d->cuModuleGetFunction, "cuModuleGetFunction");
  bind(&d->cuMemAlloc, "cuMemAlloc_v2");
  bind(&d->cuMemFree, "cuMemFree_v2");
  bind(&d->cuMemAllocHost, "cuMemAllocHost_v2");
  bind(&d->cuMemFreeHost, "cuMemFreeHost");
  bind(&d->cuMemcpyHtoD, "cuMemcpyHtoD_v2");
  bind(&d->cuMemcpyDtoH, "cuMemcpyDtoH_v2");
  bind(&d->cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2");
  bind(&d->cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2");
  bind(&d->cuMemsetD8Async, "cuMemsetD8Async");
  bind(&d->cuStreamCreate, "cuStreamCreate");
  bind(&d->cuStreamDestroy, "cuStreamDestroy_v2");
  bind(&d->cuStreamSynchronize, "cuStreamSynchronize");
  bind(&d->cuStreamWaitEvent, "cuStreamWaitEvent");
  bind(&d->cuEventCreate, "cuEventCreate");
  bind(&d->cuEventRecord, "cuEventRecord");
  bind(&d->cuEventDestroy, "cuEventDestroy_v2");
  bind(&d->cuLaunchKernel, "cuLaunchKernel");
  if (!missing.empty()) {
    *error = library + " lacks " + missing + ": the NVIDIA driver is too old (CUDA 11 or later " +
             "is needed) or the library is no CUDA driver";
    return false;
  }
  const CUresult init = d->cuInit(0);
  if (init != kCudaSuccess) {
    *error = init == kCudaErrorNoDevice ? "no CUDA device (cuInit: CUDA_ERROR_NO_DEVICE)"
             : init == kCudaErrorInsufficientDriver
                 ? "the NVIDIA driver is older than its CUDA library (cuInit: "
                   "CUDA_ERROR_INSUFFICIENT_DRIVER)"
                 : d->Describe("cuInit", init);
    return false;
  }
  if (d->cuDriverGetVersion(&d->version) != kCudaSuccess) d->version = 0;
  return true;
}

}  // namespace

const CudaDriver* CudaDriver::Get(std::string* error) {
  static CudaDriver driver;
  static std::string load_error;
  static std::once_flag once;
  static bool loaded = false;
  std::call_once(once, [] { loaded = Load(&driver, &load_error); });
  if (!loaded) *error = load_error;
  return loaded ? &driver : nullptr;
}

std::string CudaDriver::Describe(const char* call, CUresult result) const {
  const char* name = nullptr;
  const char* text = nullptr;
  if (cuGetErrorName(result, &name) != kCudaSuccess) name = nullptr;
  if (cuGetErrorString(result, &text) != kCudaSuccess) text = nullptr;
  std::string line = std::string(call) + ": " + (text != nullptr ? text : "error");
  line += " (" + (name != nullptr ? std::string(name) : "CUresult " + std::to_string(result)) + ")";
  return line;
}

}  // namespace streamglove
