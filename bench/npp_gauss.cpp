// npp_gauss.cpp — the NPP entry points and the structs they take, declared here from NPP's
// documented ABI (no NPP headers needed to build).
#include "npp_gauss.hpp"

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <vector>

#include "base/dynamic_library.hpp"
#include "gpu/cuda_driver.hpp"

namespace gpublur::bench {
namespace {

struct NppiSize {
  int width, height;
};
struct NppiPoint {
  int x, y;
};
struct NppStreamContext {
  CUstream stream;
  int device_id;
  int multiprocessor_count;
  int max_threads_per_multiprocessor;
  int max_threads_per_block;
  std::size_t shared_mem_per_block;
  int cc_major;
  int cc_minor;
  unsigned stream_flags;
  int reserved;
};
using FilterBorderFn = int (*)(const unsigned char*, int, NppiSize, NppiPoint, unsigned char*, int,
                               NppiSize, const int* matrix, NppiSize matrix_size,
                               NppiPoint anchor, int divisor, int border, NppStreamContext);
using UnsharpBorderFn = int (*)(const unsigned char*, int, NppiPoint, unsigned char*, int, NppiSize,
                                float radius, float sigma, float weight, float threshold,
                                int border, unsigned char* buffer, NppStreamContext);
using UnsharpBufferSizeFn = int (*)(float radius, float sigma, int* bytes);
using GaussBorderFn = int (*)(const unsigned char*, int, NppiSize, NppiPoint, unsigned char*, int,
                              NppiSize, int mask, int border, NppStreamContext);

constexpr int kNppBorderReplicate = 2;  // == gpublur's clamp

int mask_enum(int ksize) {  // NppiMaskSize: NPP_MASK_SIZE_3_X_3 = 200, 5x5 = 201, 7x7 = 400, ...
  switch (ksize) {
    case 3:
      return 200;
    case 5:
      return 201;
    case 7:
      return 400;
    case 9:
      return 500;
    case 11:
      return 600;
    case 13:
      return 700;
    default:
      return 800;  // 15x15
  }
}

NppStreamContext context_for(CUstream stream) {
  const auto& d = cuda::api();
  CUdevice device = 0;
  d.cuDeviceGet(&device, 0);
  NppStreamContext c{};
  c.stream = stream;
  auto attr = [&](CUdevice_attribute a) {
    int v = 0;
    d.cuDeviceGetAttribute(&v, a, device);
    return v;
  };
  c.multiprocessor_count = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  c.max_threads_per_multiprocessor = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
  c.max_threads_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  c.shared_mem_per_block =
      static_cast<std::size_t>(attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK));
  c.cc_major = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  c.cc_minor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  return c;
}

// libnppif, or nullptr with `why`.
void* open_nppif(std::string& why) {
  const std::string dir = std::getenv("CUDA_HOME")
                              ? std::string(std::getenv("CUDA_HOME")) + "/lib64/"
                              : "/usr/local/cuda/lib64/";
  const std::string major = std::to_string(CUDA_VERSION / 1000);
  // libnppif needs libnppc's symbols: load it first, globally.
  std::string ignored;
  (void)open_first_library({"libnppc.so." + major, dir + "libnppc.so." + major}, ignored);
  return open_first_library({"libnppif.so." + major, dir + "libnppif.so." + major}, why);
}

// libnppif's 8-bit entry points `name`_8u_C{1,3,4}R`suffix`, by channel count; its handle, or
// nullptr with `why` where the library or one of them is missing.
void* find_filters(const std::string& name, const std::string& suffix, void* (&filters)[5],
                   std::string& why) {
  void* lib = open_nppif(why);
  if (!lib) return nullptr;
  for (int c : {1, 3, 4}) {
    filters[c] = find_symbol(lib, (name + "_8u_C" + std::to_string(c) + "R" + suffix).c_str());
    if (!filters[c]) {
      why = "libnppif has no " + name + "_8u_C{1,3,4}R" + suffix;
      return nullptr;
    }
  }
  return lib;
}

}  // namespace

std::optional<NppGauss> NppGauss::load(CUstream stream, std::string& why) {
  NppGauss npp;
  npp.stream_ = stream;
  if (!find_filters("nppiFilterGaussBorder", "_Ctx", npp.filters_, why)) return std::nullopt;
  return npp;
}

std::optional<NppFilter> NppFilter::load(CUstream stream, std::string& why) {
  NppFilter npp;
  npp.stream_ = stream;
  if (!find_filters("nppiFilterBorder", "_Ctx", npp.filters_, why)) return std::nullopt;
  return npp;
}

std::optional<NppUnsharp> NppUnsharp::load(CUstream stream, std::string& why) {
  NppUnsharp npp;
  npp.stream_ = stream;
  if (!find_filters("nppiFilterUnsharpBorder", "_Ctx", npp.filters_, why) ||
      !find_filters("nppiFilterUnsharpGetBufferSize", "", npp.buffer_sizes_, why))
    return std::nullopt;
  return npp;
}

int NppUnsharp::run(CUdeviceptr in, int in_pitch, CUdeviceptr out, int out_pitch, int width,
                    int height, int channels, float radius, float sigma, float weight,
                    float threshold) {
  const auto fn = reinterpret_cast<UnsharpBorderFn>(filters_[channels]);
  const auto size_fn = reinterpret_cast<UnsharpBufferSizeFn>(buffer_sizes_[channels]);
  if (!fn || !size_fn) return -1;
  int bytes = 0;
  if (const int status = size_fn(radius, sigma, &bytes); status != 0) return status;
  if (!buffer_ || buffer_->size() < static_cast<std::size_t>(bytes))
    buffer_ = std::make_shared<cuda::DeviceBuffer>(static_cast<std::size_t>(std::max(bytes, 1)));
  static const NppStreamContext context = context_for(stream_);
  return fn(reinterpret_cast<const unsigned char*>(in), in_pitch, NppiPoint{0, 0},
            reinterpret_cast<unsigned char*>(out), out_pitch, NppiSize{width, height}, radius,
            sigma, weight, threshold, kNppBorderReplicate,
            reinterpret_cast<unsigned char*>(buffer_->get()), context);
}

int NppFilter::run(CUdeviceptr in, int in_pitch, CUdeviceptr out, int out_pitch, int width,
                   int height, int channels, CUdeviceptr matrix, int matrix_width,
                   int matrix_height, int divisor) const {
  const auto fn = reinterpret_cast<FilterBorderFn>(filters_[channels]);
  if (!fn) return -1;
  static const NppStreamContext context = context_for(stream_);
  const NppiSize size{width, height};
  return fn(reinterpret_cast<const unsigned char*>(in), in_pitch, size, NppiPoint{0, 0},
            reinterpret_cast<unsigned char*>(out), out_pitch, size,
            reinterpret_cast<const int*>(matrix), NppiSize{matrix_width, matrix_height},
            NppiPoint{matrix_width / 2, matrix_height / 2}, divisor, kNppBorderReplicate, context);
}

int NppGauss::run(CUdeviceptr in, int in_pitch, CUdeviceptr out, int out_pitch, int width,
                  int height, int channels, int ksize) const {
  const auto fn = reinterpret_cast<GaussBorderFn>(filters_[channels]);
  if (!fn) return -1;
  static const NppStreamContext context = context_for(stream_);
  const NppiSize size{width, height};
  return fn(reinterpret_cast<const unsigned char*>(in), in_pitch, size, NppiPoint{0, 0},
            reinterpret_cast<unsigned char*>(out), out_pitch, size, mask_enum(ksize),
            kNppBorderReplicate, context);
}

}  // namespace gpublur::bench
