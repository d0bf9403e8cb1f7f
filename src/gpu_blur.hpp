// gpu_blur.hpp — finding a usable GPU and running a compiled blur kernel on it.
// Exposes gpublur types only; the driver lives behind cuda_driver.hpp.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "arch.hpp"
#include "codegen.hpp"
#include "image.hpp"
#include "nvrtc.hpp"

namespace gpublur {

struct GpuInfo {
  int ordinal = 0;
  std::string name;
  Arch arch;               // compute capability
  int driver_version = 0;  // e.g. 13000 for CUDA 13.0
  std::size_t memory_bytes = 0;
};

/// The first GPU, after loading the driver and cuInit; nullopt with `why` (for the user) when
/// there is no driver or no device. Expected on machines without a GPU, so not an exception.
std::optional<GpuInfo> probe_gpu(std::string& why);

/// "CUDA 13.0" from 13000.
std::string driver_version_string(int version);

/// Bytes between rows of an image on the GPU: row_bytes rounded up to 128, so every row starts
/// on a cache-line boundary and the kernels may use 16-byte accesses.
std::size_t device_pitch(std::size_t row_bytes);

struct GpuRun {
  Image output;
  float kernel_ms = 0;  // the kernel alone, CUDA events
};

/// Uploads `in`, runs `compiled` (built from `kernel`) on the GPU `gpu`, downloads the result.
/// Throws CudaError naming the failing call and what it was for.
GpuRun blur_on_gpu(const Image& in, const GeneratedKernel& kernel, const CompiledKernel& compiled,
                   const GpuInfo& gpu);

}  // namespace gpublur
