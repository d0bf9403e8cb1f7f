// gpu_floor.cpp — the least a process that blurs on the GPU must spend: load the driver,
// cuInit, retain the primary context, release it, exit. No image, no kernel. e2e_bench.py runs it
// beside gpublur, so the whole-process times can be read against the driver's own start-up and
// teardown on the same machine in the same run. Like gpublur, it asks for one work queue
// (CUDA_DEVICE_MAX_CONNECTIONS=1) unless the environment says otherwise.
//   gpublur_gpu_floor [--keep]   (--keep: exit with the context still retained, leaving its
//                                 teardown to the driver at exit; status 0, or 1 without a GPU)
#include <cstdlib>
#include <cstdio>
#include <memory>
#include <string>

#include "gpu_blur.hpp"

int main(int argc, char** argv) {
  const bool keep = argc > 1 && std::string(argv[1]) == "--keep";
  ::setenv("CUDA_DEVICE_MAX_CONNECTIONS", "1", /*overwrite=*/0);
  std::string why;
  const auto gpu = gpublur::probe_gpu(why);
  if (!gpu) {
    std::fprintf(stderr, "gpublur_gpu_floor: no GPU: %s\n", why.c_str());
    return 1;
  }
  auto session = std::make_unique<gpublur::GpuSession>(*gpu);
  if (keep) static_cast<void>(session.release());
  return 0;
}
