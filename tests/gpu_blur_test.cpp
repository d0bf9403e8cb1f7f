// gpu_blur_test.cpp — [gpu] the GPU result equals the CPU result byte for byte, from CUBIN and
// from PTX, over channel counts, image shapes, kernel sizes and borders.
#include <catch2/catch.hpp>

#include <map>

#include "cpu_blur.hpp"
#include "gpu_blur.hpp"
#include "reference_blur.hpp"

using namespace gpublur;

namespace {

const GpuInfo& gpu() {
  static const GpuInfo info = [] {
    std::string why;
    auto found = probe_gpu(why);
    if (!found) throw std::runtime_error(why);
    return *found;
  }();
  return info;
}

// Compiles each (source, target) once: the same kernel serves every image size.
const CompiledKernel& compiled_for(const GeneratedKernel& kernel, Target target) {
  static std::map<std::pair<std::string, Target>, CompiledKernel> cache;
  const auto key = std::make_pair(kernel.source, target);
  auto it = cache.find(key);
  if (it == cache.end()) {
    const CompilePlan plan = plan_compile(gpu().arch, target, nvrtc_version());
    it = cache.emplace(key, compile_kernel(kernel, plan)).first;
  }
  return it->second;
}

Image blur_on_gpu(const Image& in, const BlurSpec& spec, Target target) {
  const GeneratedKernel kernel = generate_kernel(spec);
  return gpublur::blur_on_gpu(in, kernel, compiled_for(kernel, target), gpu()).output;
}

void require_gpu_equals_cpu(const Image& in, const BlurSpec& spec) {
  const Image cpu = blur_on_cpu(in, spec);
  for (Target target : {Target::kCubin, Target::kPtx}) {
    CAPTURE(target_name(target));
    const Image gpu_out = blur_on_gpu(in, spec, target);
    REQUIRE(gpu_out.pixels.size() == cpu.pixels.size());
    REQUIRE(gpu_out.pixels == cpu.pixels);
  }
}

}  // namespace

TEST_CASE("GPU == CPU for kernel sizes 1 to 31, 1-4 channels, awkward shapes", "[gpu]") {
  const int channels = GENERATE(1, 2, 3, 4);
  const auto [width, height] = GENERATE(table<int, int>({{1, 1}, {17, 3}, {1000, 777}}));
  const Image in =
      test::random_image(width, height, channels, static_cast<std::uint32_t>(width + channels));
  for (int size = 1; size <= 31; size += 2) {
    CAPTURE(channels, width, height, size);
    require_gpu_equals_cpu(in, test::make_test_spec(size, size / 4.0 + 0.3, channels));
  }
}

TEST_CASE("GPU == CPU for every border, radius beyond the image", "[gpu]") {
  const Border border = GENERATE(Border::kClamp, Border::kReflect, Border::kReflect101,
                                 Border::kWrap, Border::kConstant);
  const auto [width, height, channels, size] =
      GENERATE(table<int, int, int, int>({{3, 2, 4, 31},
                                          {1, 50, 3, 9},
                                          {50, 1, 2, 9},
                                          {13, 42, 3, 7},
                                          {176, 113, 4, 15},
                                          {1009, 13, 1, 31},
                                          {257, 263, 3, 5}}));
  CAPTURE(border_name(border), width, height, channels, size);
  const Image in = test::random_image(width, height, channels, 99);
  require_gpu_equals_cpu(
      in, test::make_test_spec(size, size / 5.0 + 0.2, channels, border, {7, 250, 128, 3}));
}

TEST_CASE("GPU == CPU for large kernels", "[gpu]") {
  const auto [size, channels] = GENERATE(table<int, int>({{101, 3}, {255, 4}, {255, 1}}));
  CAPTURE(size, channels);
  const Image in = test::random_image(700, 300, channels, 5);
  require_gpu_equals_cpu(in, test::make_test_spec(size, size / 6.0, channels, Border::kReflect101));
}

TEST_CASE("GPU result is within 1 LSB of the float64 reference", "[gpu]") {
  const Image in = test::random_image(61, 47, 3, 11);
  const Image out = blur_on_gpu(in, test::make_test_spec(7, 1.5, 3), Target::kCubin);
  CHECK(test::max_abs_diff(out, test::reference_blur(in, 7, 1.5, Border::kClamp, {})) <= 1.0);
}
