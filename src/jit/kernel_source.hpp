// kernel_source.hpp — a program as the compile layer takes it: CUDA C++ text and a name for
// NVRTC's diagnostics. The compile layer knows nothing of what the program computes: codegen's
// GeneratedKernel is one of these plus what its launch needs. Plain data.
#pragma once

#include <string>

namespace gpublur {

struct KernelSource {
  std::string name;    // e.g. "gpublur_tiled_7x7_c3.cu"
  std::string source;  // the whole translation unit; entry points are extern "C"
};

}  // namespace gpublur
