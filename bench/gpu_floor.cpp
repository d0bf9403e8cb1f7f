// gpu_floor.cpp — the least a process that blurs on the GPU must spend: load the driver,
// cuInit, retain the primary context, release it, exit. No image, no kernel. e2e_bench.py runs it
// beside gpublur, so the whole-process times can be read against the driver's own start-up and
// teardown on the same machine in the same run. Like gpublur, it asks for one work queue
// (CUDA_DEVICE_MAX_CONNECTIONS=1) unless the environment says otherwise.
//   gpublur_gpu_floor        (exit status 0, or 1 with the reason when there is no GPU)
#include <cstdlib>
#include <cstdio>
#include <string>

#include "gpu_blur.hpp"

int main() {
  ::setenv("CUDA_DEVICE_MAX_CONNECTIONS", "1", /*overwrite=*/0);
  std::string why;
  const auto gpu = gpublur::probe_gpu(why);
  if (!gpu) {
    std::fprintf(stderr, "gpublur_gpu_floor: no GPU: %s\n", why.c_str());
    return 1;
  }
  { const gpublur::GpuSession session(*gpu); }
  return 0;
}
