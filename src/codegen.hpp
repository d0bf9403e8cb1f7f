// codegen.hpp — BlurSpec -> CUDA C++ source: a generated prelude (taps, radius, channels,
// border, tile) prepended to the unchanged kernels/blur.cu. Pure and deterministic: the same
// spec gives byte-identical source (pinned by tests/golden/).
#pragma once

#include <string>

#include "blur_spec.hpp"

namespace gpublur {

/// How the kernel is run: block and tile shape. Chosen from the spec, never from the image,
/// so one compiled kernel serves every image size.
struct KernelSchedule {
  int block_threads = 256;
  int tile_w = 256;  // output bytes per block
  int tile_h = 16;   // output rows per block
  int shared_bytes = 0;
};

struct GeneratedKernel {
  std::string source;
  std::string name;  // program name for NVRTC diagnostics, e.g. "gpublur_blur_7x7_c3.cu"
  std::string entry = "gb_blur_kernel";
  int channels = 0;  // the image channel count the kernel was generated for
  KernelSchedule schedule;
};

KernelSchedule choose_schedule(const BlurSpec& spec);
GeneratedKernel generate_kernel(const BlurSpec& spec);

}  // namespace gpublur
