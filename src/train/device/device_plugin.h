// DevicePlugin: a training device's shared library (train/device/
// device_api.h), loaded at run time, so that the streamglove binary neither
// links nor needs CUDA: without the plugin, only `train --device cuda` fails,
// with one line saying where the plugin was looked for and why it was not
// usable.
//
// Where: the file named by $STREAMGLOVE_CUDA_PLUGIN if set and not empty,
// else libstreamglove_cuda.so beside the running executable, then in
// ../lib/streamglove/ from it (an installed tree).
//
// Thread-safety: immutable once loaded. Ownership: the library stays loaded
// for the rest of the process (a GPU runtime is not safely unloaded);
// sessions opened from its api() must be closed before the DevicePlugin is
// destroyed.
#ifndef STREAMGLOVE_TRAIN_DEVICE_DEVICE_PLUGIN_H_
#define STREAMGLOVE_TRAIN_DEVICE_DEVICE_PLUGIN_H_

#include <memory>
#include <string>
#include <vector>

#include "streamglove/status.h"
#include "train/device/device_api.h"

namespace streamglove {

// The environment variable naming a plugin file, which then is the only
// place looked at.
inline constexpr char kCudaPluginVariable[] = "STREAMGLOVE_CUDA_PLUGIN";
inline constexpr char kCudaPluginFile[] = "libstreamglove_cuda.so";

class DevicePlugin {
 public:
  // Loads the CUDA plugin from the places above.
  static Status LoadCuda(std::unique_ptr<DevicePlugin>* plugin);
  // Loads the plugin at `path`; `purpose` starts each error line ("--device
  // cuda").
  static Status Load(const std::string& path, const std::string& purpose,
                     std::unique_ptr<DevicePlugin>* plugin);

  ~DevicePlugin();
  DevicePlugin(const DevicePlugin&) = delete;
  DevicePlugin& operator=(const DevicePlugin&) = delete;

  const sg_device_api& api() const { return *api_; }
  const std::string& path() const { return path_; }

 private:
  DevicePlugin(void* handle, const sg_device_api* api, std::string path)
      : handle_(handle), api_(api), path_(std::move(path)) {}

  void* const handle_;  // dlopen's
  const sg_device_api* const api_;
  const std::string path_;
};

// Where LoadCuda() looks, in order, when $STREAMGLOVE_CUDA_PLUGIN is unset.
std::vector<std::string> CudaPluginCandidates();

}  // namespace streamglove

#endif  // STREAMGLOVE_TRAIN_DEVICE_DEVICE_PLUGIN_H_
