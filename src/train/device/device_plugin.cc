#include "train/device/device_plugin.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "util/file.h"

namespace streamglove {

std::vector<std::string> CudaPluginCandidates() {
  std::error_code error;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return {kCudaPluginFile};  // in the working directory
  const std::filesystem::path dir = exe.parent_path();
  return {(dir / kCudaPluginFile).string(),
          (dir.parent_path() / "lib" / "streamglove" / kCudaPluginFile).string()};
}

Status DevicePlugin::LoadCuda(std::unique_ptr<DevicePlugin>* plugin) {
  const char* purpose = "--device cuda";
  if (const char* named = std::getenv(kCudaPluginVariable); named != nullptr && *named != '\0') {
    return Load(named, fmt::format("{} ({}={})", purpose, kCudaPluginVariable, named), plugin);
  }
  const std::vector<std::string> candidates = CudaPluginCandidates();
  for (const std::string& path : candidates) {
    if (PathExists(path)) return Load(path, purpose, plugin);
  }
  return Status::NotFound(
      fmt::format("{}: no CUDA plugin: {} is not in {}, and {} is not set (the plugin is built "
                  "apart from streamglove, where the CUDA toolkit is: docs/gpu.md)",
                  purpose, kCudaPluginFile, fmt::join(candidates, " nor "), kCudaPluginVariable));
}

Status DevicePlugin::Load(const std::string& path, const std::string& purpose,
                          std::unique_ptr<DevicePlugin>* plugin) {
  // RTLD_LOCAL: the plugin's symbols do not interpose on the binary's.
  // RTLD_NODELETE: never unloaded, since a GPU runtime's threads and exit
  // handlers may outlive a dlclose. dlopen needs a slash to take the path as
  // a file, not a library name.
  const std::string file = path.find('/') == std::string::npos ? "./" + path : path;
  void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (handle == nullptr) {
    const char* why = dlerror();
    return Status::IOError(fmt::format("{}: cannot load {}: {}", purpose, path,
                                       why != nullptr ? why : "unknown dlopen error"));
  }
  // The entry point is looked up as a function pointer; POSIX guarantees the
  // conversion from dlsym's void*.
  const auto entry = reinterpret_cast<sg_device_entry_point>(dlsym(handle, SG_DEVICE_ENTRY_POINT));
  const sg_device_api* api = entry != nullptr ? entry() : nullptr;
  Status status;
  if (entry == nullptr) {
    status = Status::InvalidArgument(
        fmt::format("{}: {} is no streamglove device plugin (it exports no {})", purpose, path,
                    SG_DEVICE_ENTRY_POINT));
  } else if (api == nullptr || api->abi_version != SG_DEVICE_ABI_VERSION) {
    status = Status::InvalidArgument(fmt::format(
        "{}: {} was built for device interface version {}, this streamglove speaks version {}; "
        "rebuild the plugin with this streamglove",
        purpose, path, api != nullptr ? api->abi_version : 0u, SG_DEVICE_ABI_VERSION));
  } else if (api->probe == nullptr || api->open == nullptr || api->close == nullptr ||
             api->error == nullptr || api->slot == nullptr || api->write_array == nullptr ||
             api->read_array == nullptr || api->submit == nullptr || api->wait == nullptr ||
             api->keep == nullptr || api->submit_resident == nullptr) {
    status = Status::InvalidArgument(
        fmt::format("{}: {} leaves functions of the device interface unset", purpose, path));
  }
  if (!status.ok()) {
    dlclose(handle);
    return status;
  }
  plugin->reset(new DevicePlugin(handle, api, path));
  return Status::OK();
}

DevicePlugin::~DevicePlugin() { dlclose(handle_); }

}  // namespace streamglove
