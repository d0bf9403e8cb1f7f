// bench_timing.cpp — events, medians and rotating buffers for the kernel benchmarks.
#include "bench_timing.hpp"

#include <algorithm>
#include <random>

#include "codegen/launch_dims.hpp"

namespace gpublur::bench {

RotatingBuffers rotating_buffers(int width, int height, int channels, int images,
                                 std::size_t l2_bytes, const cuda::Stream& stream) {
  RotatingBuffers b;
  b.pitch = device_pitch(static_cast<std::size_t>(width) * static_cast<std::size_t>(channels));
  b.image_bytes = b.pitch * static_cast<std::size_t>(height);
  b.bytes = b.image_bytes * static_cast<std::size_t>(images);
  const std::size_t pairs = std::clamp<std::size_t>((4 * l2_bytes) / b.bytes + 1, 2, 64);
  b.host.resize(b.bytes);
  std::mt19937 rng(42);
  for (auto& v : b.host) v = static_cast<unsigned char>(rng() >> 24);
  for (std::size_t i = 0; i < pairs; ++i) {
    b.in.emplace_back(b.bytes);
    b.out.emplace_back(b.bytes);
    GB_CU_CHECK(
        cuda::api().cuMemcpyHtoDAsync(b.in.back().get(), b.host.data(), b.bytes, stream.get()),
        "upload");
  }
  stream.synchronize("uploading benchmark data");
  return b;
}

double median_ms(const cuda::Stream& stream, int warmup, int iters,
                 const std::function<void(std::size_t)>& work, const EventTiming& timing) {
  for (int i = 0; i < warmup; ++i) work(static_cast<std::size_t>(i));
  const auto n = static_cast<std::size_t>(iters);
  std::vector<cuda::Event> starts(n), stops(n);
  std::size_t next = static_cast<std::size_t>(warmup);
  for (std::size_t i = 0; i < n; ++i) {
    if (timing.hold) {
      unsigned long long ns = timing.hold_ns;
      void* args[] = {&ns};
      GB_CU_CHECK(cuda::api().cuLaunchKernel(timing.hold, 1, 1, 1, 32, 1, 1, 0, stream.get(), args,
                                             nullptr),
                  "hold kernel");
    }
    starts[i].record(stream);
    for (int k = 0; k < timing.batch; ++k) work(next++);
    stops[i].record(stream);
  }
  std::vector<double> ms;
  for (std::size_t i = 0; i < n; ++i)
    ms.push_back(stops[i].elapsed_since(starts[i]) / timing.batch);
  std::nth_element(ms.begin(), ms.begin() + iters / 2, ms.end());
  return ms[n / 2];
}

}  // namespace gpublur::bench
