// npp_gauss.hpp — NPP's nppiFilterGaussBorder (8-bit, 1/3/4 channels, masks 3..15), its general
// nppiFilterBorder (an integer matrix and a divisor) and its nppiFilterUnsharpBorder, loaded at
// run time from the CUDA toolkit where present, as references in the kernel and filter
// benchmarks.
#pragma once

#include <cuda.h>

#include <memory>
#include <optional>
#include <string>

#include "gpu/cuda_driver.hpp"

namespace gpublur::bench {

class NppGauss {
 public:
  /// nullopt with `why` when libnppif cannot be loaded.
  static std::optional<NppGauss> load(CUstream stream, std::string& why);

  static bool supports(int ksize) { return ksize >= 3 && ksize <= 15 && ksize % 2 == 1; }

  /// Launches on the stream given to load(); returns NPP's status (0 is success).
  int run(CUdeviceptr in, int in_pitch, CUdeviceptr out, int out_pitch, int width, int height,
          int channels, int ksize) const;

 private:
  void* filters_[5] = {};  // by channel count
  CUstream stream_ = nullptr;
};

/// nppiFilterBorder_8u_C{1,3,4}R: an integer matrix (convolution: NPP flips it; the time is the
/// same) divided by a divisor, the border replicated (gpublur's clamp).
class NppFilter {
 public:
  static std::optional<NppFilter> load(CUstream stream, std::string& why);

  /// `matrix` is in device memory, width x height Npp32s, row-major.
  int run(CUdeviceptr in, int in_pitch, CUdeviceptr out, int out_pitch, int width, int height,
          int channels, CUdeviceptr matrix, int matrix_width, int matrix_height, int divisor) const;

 private:
  void* filters_[5] = {};  // by channel count
  CUstream stream_ = nullptr;
};

/// nppiFilterUnsharpBorder_8u_C{1,3,4}R: NPP's unsharp mask (its Gaussian of a radius and sigma,
/// then in + weight x (in - blur) where |in - blur| > threshold), the border replicated, with the
/// scratch buffer its GetBufferSize asks for, allocated once per (radius, sigma, channels).
class NppUnsharp {
 public:
  static std::optional<NppUnsharp> load(CUstream stream, std::string& why);

  int run(CUdeviceptr in, int in_pitch, CUdeviceptr out, int out_pitch, int width, int height,
          int channels, float radius, float sigma, float weight, float threshold);

 private:
  void* filters_[5] = {};       // by channel count
  void* buffer_sizes_[5] = {};  // nppiFilterUnsharpGetBufferSize_8u_C{1,3,4}R
  CUstream stream_ = nullptr;
  std::shared_ptr<cuda::DeviceBuffer> buffer_;
};

}  // namespace gpublur::bench
