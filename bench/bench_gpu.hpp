// bench_gpu.hpp — for a bench tool: the first GPU and its context, made current on the calling
// thread; where there is none, says why and exits with 77 (a skip, as CTest counts it).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "gpu/gpu_blur.hpp"

namespace gpublur::bench {

struct BenchGpu {
  GpuInfo info;
  std::unique_ptr<GpuSession> session;
};

inline BenchGpu open_gpu_or_exit(const char* tool) {
  std::string why;
  const auto gpu = probe_gpu(why);
  if (!gpu) {
    std::fprintf(stderr, "%s: no GPU: %s\n", tool, why.c_str());
    std::exit(77);
  }
  BenchGpu b{*gpu, std::make_unique<GpuSession>(*gpu)};
  b.session->make_current();
  return b;
}

}  // namespace gpublur::bench
