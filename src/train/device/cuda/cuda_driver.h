// CudaDriver: the few functions of the CUDA driver API the plugin calls,
// opened at run time from the NVIDIA driver's libcuda.so.1, so that nothing
// of CUDA is needed to build the plugin and a machine without the driver
// gets one line saying so. The types and prototypes are cuda.h's (public);
// the `_v2` names are the ones cuda.h's macros have chosen since CUDA 4.
//
// Test hook: $STREAMGLOVE_CUDA_DRIVER names another library to open (a fake
// driver, tests/train/device/fake_cuda_driver.cc).
//
// Thread-safety: Get() may be called from any thread; the table is
// immutable once loaded. The driver's own functions are thread-safe.
#ifndef STREAMGLOVE_TRAIN_DEVICE_CUDA_CUDA_DRIVER_H_
#define STREAMGLOVE_TRAIN_DEVICE_CUDA_CUDA_DRIVER_H_

#include <stddef.h>

#include <string>

namespace streamglove {

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st* CUcontext;
typedef struct CUmod_st* CUmodule;
typedef struct CUfunc_st* CUfunction;
typedef struct CUstream_st* CUstream;
typedef struct CUevent_st* CUevent;

// cuda.h's values of the enums the plugin uses.
inline constexpr CUresult kCudaSuccess = 0;
inline constexpr CUresult kCudaErrorOutOfMemory = 2;
inline constexpr CUresult kCudaErrorInsufficientDriver = 35;
inline constexpr CUresult kCudaErrorNoDevice = 100;
inline constexpr CUresult kCudaErrorInvalidPtx = 218;
inline constexpr CUresult kCudaErrorUnsupportedPtxVersion = 222;
inline constexpr int kCudaAttributeMultiprocessorCount = 16;
inline constexpr int kCudaAttributeComputeCapabilityMajor = 75;
inline constexpr int kCudaAttributeComputeCapabilityMinor = 76;
inline constexpr int kCudaJitErrorLogBuffer = 5;
inline constexpr int kCudaJitErrorLogBufferSizeBytes = 6;
inline constexpr unsigned kCudaStreamNonBlocking = 1;
inline constexpr unsigned kCudaEventDisableTiming = 2;

struct CudaDriver {
  // The loaded driver, or nullptr with *error saying why (no library, or a
  // library lacking a function: a driver older than CUDA 11).
  static const CudaDriver* Get(std::string* error);

  // "cuMemAlloc: out of memory (CUDA_ERROR_OUT_OF_MEMORY)".
  std::string Describe(const char* call, CUresult result) const;

  int version = 0;  // cuDriverGetVersion's: 12040 is CUDA 12.4

  CUresult (*cuInit)(unsigned);
  CUresult (*cuDriverGetVersion)(int*);
  CUresult (*cuGetErrorName)(CUresult, const char**);
  CUresult (*cuGetErrorString)(CUresult, const char**);
  CUresult (*cuDeviceGetCount)(int*);
  CUresult (*cuDeviceGet)(CUdevice*, int);
  CUresult (*cuDeviceGetName)(char*, int, CUdevice);
  CUresult (*cuDeviceGetAttribute)(int*, int, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice);
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuMemGetInfo)(size_t*, size_t*);
  CUresult (*cuModuleLoadDataEx)(CUmodule*, const void*, unsigned, int*, void**);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*);
  CUresult (*cuMemAlloc)(CUdeviceptr*, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemAllocHost)(void**, size_t);
  CUresult (*cuMemFreeHost)(void*);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void*, size_t);
  CUresult (*cuMemcpyDtoH)(void*, CUdeviceptr, size_t);
  CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr, const void*, size_t, CUstream);
  CUresult (*cuMemcpyDtoHAsync)(void*, CUdeviceptr, size_t, CUstream);
  CUresult (*cuMemsetD8Async)(CUdeviceptr, unsigned char, size_t, CUstream);
  CUresult (*cuStreamCreate)(CUstream*, unsigned);
  CUresult (*cuStreamDestroy)(CUstream);
  CUresult (*cuStreamSynchronize)(CUstream);
  CUresult (*cuStreamWaitEvent)(CUstream, CUevent, unsigned);
  CUresult (*cuEventCreate)(CUevent*, unsigned);
  CUresult (*cuEventRecord)(CUevent, CUstream);
  CUresult (*cuEventDestroy)(CUevent);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, CUstream, void**, void**);
};

}  // namespace streamglove

#endif  // STREAMGLOVE_TRAIN_DEVICE_CUDA_CUDA_DRIVER_H_
