// cpu_blur_bench.cpp — the CPU blur's time on one core and on all, for the sizes a batch meets
// (1080p and 4K RGB, 7x7 and 31x31), median of several runs: the CPU path's share of a batch
// on a machine without a GPU (bench/HISTORY.md).
//   gpublur_cpu_blur_bench [repeat]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "cpu/cpu_blur.hpp"
#include "image/image.hpp"
#include "ops/blur_parameters.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double median_ms(int repeat, const gpublur::Image& in, const gpublur::BlurSpec& spec,
                 unsigned threads) {
  std::vector<double> ms;
  for (int i = 0; i < repeat; ++i) {
    const auto start = Clock::now();
    const gpublur::Image out = gpublur::blur_on_cpu(in, spec, threads);
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    if (out.pixels.empty()) std::abort();
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  using namespace gpublur;
  const int repeat = argc > 1 ? std::atoi(argv[1]) : 7;
  std::printf("| image | kernel | 1 thread ms | %u threads ms |\n|---|---|---|---|\n",
              std::thread::hardware_concurrency());
  for (const auto& [w, h] : {std::pair{1920, 1080}, std::pair{3840, 2160}}) {
    Image in = make_image(w, h, 3);
    std::uint32_t state = 12345;
    for (auto& v : in.pixels)
      v = static_cast<std::uint8_t>((state = state * 1664525u + 1013904223u) >> 24);
    for (int size : {7, 31}) {
      BlurParameters p;
      p.size.x = p.size.y = AxisSize{size, 0.3 * ((size - 1) * 0.5 - 1) + 0.8, ""};
      const BlurSpec spec = make_blur_spec(p, 3);
      std::printf("| %dx%d RGB | %dx%d | %.2f | %.2f |\n", w, h, size, size,
                  median_ms(repeat, in, spec, 1), median_ms(repeat, in, spec, 0));
    }
  }
  return 0;
}
