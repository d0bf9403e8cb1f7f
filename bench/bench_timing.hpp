// bench_timing.hpp — how the kernel benchmarks time the GPU: CUDA events around the work, a
// warm-up, the median; inputs in buffers that rotate through more than 4x the L2, so no launch
// finds its data in cache.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "gpu/cuda_driver.hpp"

namespace gpublur::bench {

/// Pairs of input and output buffers, each a stack of `images` pitched images, the inputs of
/// random bytes (the same in every pair: `host` holds them).
struct RotatingBuffers {
  std::size_t pitch = 0, image_bytes = 0, bytes = 0;  // bytes: a whole stack's
  std::vector<cuda::DeviceBuffer> in, out;
  std::vector<unsigned char> host;
  CUdeviceptr input(std::size_t i) const { return in[i % in.size()].get(); }
  CUdeviceptr output(std::size_t i) const { return out[i % out.size()].get(); }
};

RotatingBuffers rotating_buffers(int width, int height, int channels, int images,
                                 std::size_t l2_bytes, const cuda::Stream& stream);

/// How each measurement is taken: `batch` calls of the work back to back between its events, the
/// time divided by `batch`; with `hold`, a kernel that holds the GPU for `hold_ns` first, so the
/// host has queued the events and the work before the GPU reaches them (no launch latency).
struct EventTiming {
  int batch = 1;
  CUfunction hold = nullptr;
  unsigned long long hold_ns = 0;
};

/// Median milliseconds of work(i), i counting up from 0, over `iters` measurements after
/// `warmup` untimed calls.
double median_ms(const cuda::Stream& stream, int warmup, int iters,
                 const std::function<void(std::size_t)>& work, const EventTiming& timing = {});

}  // namespace gpublur::bench
