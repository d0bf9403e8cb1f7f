// nvjpeg_api.cpp — finding libnvjpeg, resolving its entry points, naming its statuses.
#include "nvjpeg/nvjpeg_api.hpp"

#include <cstdlib>
#include <optional>
#include <vector>

#include "base/dynamic_library.hpp"
#include "base/errors.hpp"
#include "nvjpeg/gpu_jpeg.hpp"

namespace gpublur::nvjpeg {
namespace {

struct LoadResult {
  std::optional<Api> api;
  std::string why;
};

std::vector<std::string> candidates() {
  const std::string name = "libnvjpeg.so." + std::to_string(NVJPEG_VER_MAJOR);
  if (const char* path = std::getenv("GPUBLUR_NVJPEG")) return {path};
  std::vector<std::string> names{name};
  if (const char* home = std::getenv("CUDA_HOME"))
    names.push_back(std::string(home) + "/lib64/" + name);
  names.push_back("/usr/local/cuda/lib64/" + name);
#ifdef GPUBLUR_NVJPEG_BUILD_DIR
  names.push_back(std::string(GPUBLUR_NVJPEG_BUILD_DIR) + "/" + name);
#endif
  return names;
}

LoadResult load_once() {
  LoadResult result;
  const std::vector<std::string> names = candidates();
  void* lib = open_first_library(names, result.why);
  if (!lib) {
    result.why =
        "nvJPEG not found (" + (result.why.empty() ? "GPUBLUR_NVJPEG is empty" : result.why) + ")";
    return result;
  }
  Api a{};
#define GB_RESOLVE(name)                                                \
  a.name = reinterpret_cast<decltype(a.name)>(find_symbol(lib, #name)); \
  if (!a.name) {                                                        \
    result.why = "nvJPEG has no " #name " (a version older than 13?)";  \
    return result;                                                      \
  }
  GB_NVJPEG_ENTRY_POINTS(GB_RESOLVE)
#undef GB_RESOLVE
  int major = 0, minor = 0, patch = 0;
  a.nvjpegGetProperty(MAJOR_VERSION, &major);
  a.nvjpegGetProperty(MINOR_VERSION, &minor);
  a.nvjpegGetProperty(PATCH_LEVEL, &patch);
  a.path =
      "nvJPEG " + std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
  result.api = a;
  return result;
}

}  // namespace

const Api* load(std::string& why) {
  static const LoadResult result = load_once();
  why = result.why;
  return result.api ? &*result.api : nullptr;
}

const char* status_name(nvjpegStatus_t status) {
  switch (status) {
    case NVJPEG_STATUS_SUCCESS:
      return "NVJPEG_STATUS_SUCCESS";
    case NVJPEG_STATUS_NOT_INITIALIZED:
      return "NVJPEG_STATUS_NOT_INITIALIZED";
    case NVJPEG_STATUS_INVALID_PARAMETER:
      return "NVJPEG_STATUS_INVALID_PARAMETER";
    case NVJPEG_STATUS_BAD_JPEG:
      return "NVJPEG_STATUS_BAD_JPEG";
    case NVJPEG_STATUS_JPEG_NOT_SUPPORTED:
      return "NVJPEG_STATUS_JPEG_NOT_SUPPORTED";
    case NVJPEG_STATUS_ALLOCATOR_FAILURE:
      return "NVJPEG_STATUS_ALLOCATOR_FAILURE";
    case NVJPEG_STATUS_EXECUTION_FAILED:
      return "NVJPEG_STATUS_EXECUTION_FAILED";
    case NVJPEG_STATUS_ARCH_MISMATCH:
      return "NVJPEG_STATUS_ARCH_MISMATCH";
    case NVJPEG_STATUS_INTERNAL_ERROR:
      return "NVJPEG_STATUS_INTERNAL_ERROR";
    case NVJPEG_STATUS_IMPLEMENTATION_NOT_SUPPORTED:
      return "NVJPEG_STATUS_IMPLEMENTATION_NOT_SUPPORTED";
    case NVJPEG_STATUS_INCOMPLETE_BITSTREAM:
      return "NVJPEG_STATUS_INCOMPLETE_BITSTREAM";
  }
  return "an unknown nvJPEG status";
}

void throw_error(nvjpegStatus_t status, const char* call, const std::string& subject) {
  throw GpuJpegError(subject + ": " + called_function(call) + " failed: " + status_name(status));
}

}  // namespace gpublur::nvjpeg
