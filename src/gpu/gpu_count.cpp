// gpu_count.cpp — CUDA_VISIBLE_DEVICES, NVML, then /proc, in that order.
#include "gpu/gpu_count.hpp"

#include <cstdlib>
#include <filesystem>
#include <string>

#include "base/dynamic_library.hpp"

namespace gpublur {
namespace {

// CUDA_VISIBLE_DEVICES' entries up to the first that CUDA would stop at (an empty or negative
// one); -1 where it is not set.
int visible_devices_entries() {
  const char* value = std::getenv("CUDA_VISIBLE_DEVICES");
  if (!value) return -1;
  const std::string list(value);
  int count = 0;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t comma = list.find(',', start);
    const std::string entry =
        list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (entry.empty() || entry[0] == '-') break;
    ++count;
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return count;
}

// NVML's count of the driver's GPUs (NVML does not initialize CUDA); -1 where it is not there.
int nvml_count() {
  using Init = int (*)();
  using Count = int (*)(unsigned*);
  std::string why;
  void* library = open_first_library({"libnvidia-ml.so.1"}, why);
  if (!library) return -1;
  const auto init = reinterpret_cast<Init>(find_symbol(library, "nvmlInit_v2"));
  const auto count = reinterpret_cast<Count>(find_symbol(library, "nvmlDeviceGetCount_v2"));
  const auto shutdown = reinterpret_cast<Init>(find_symbol(library, "nvmlShutdown"));
  if (!init || !count || !shutdown || init() != 0) return -1;
  unsigned devices = 0;
  const int status = count(&devices);
  shutdown();
  return status == 0 ? static_cast<int>(devices) : -1;
}

int proc_count() {
  std::error_code error;
  int count = 0;
  for (std::filesystem::directory_iterator it("/proc/driver/nvidia/gpus", error), end;
       !error && it != end; it.increment(error)) {
    ++count;
  }
  return count;
}

}  // namespace

int listed_gpu_count() {
  if (const int listed = visible_devices_entries(); listed >= 0) return listed;
  return proc_count();
}

int visible_gpu_count() {
  if (const int listed = visible_devices_entries(); listed >= 0) return listed;
  // Asked once a process: starting NVML is start-up time, and a batch asks more than once.
  static const int nvml = nvml_count();
  if (nvml >= 0) return nvml;
  return proc_count();
}

}  // namespace gpublur
