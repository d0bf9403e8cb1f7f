// npp_gauss.hpp — NPP's nppiFilterGaussBorder (8-bit, 1/3/4 channels, masks 3..15), loaded at
// run time from the CUDA toolkit where present, as a reference in the kernel benchmark.
#pragma once

#include <cuda.h>

#include <optional>
#include <string>

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

}  // namespace gpublur::bench
