// gpu_blur_test.cpp — [gpu] the GPU result equals the CPU result byte for byte: every kernel
// variant, from CUBIN and from PTX, over channel counts, image shapes, kernel sizes and borders.
// Kernels are compiled in parallel up front (NVRTC is thread-safe), then run one by one.
#include <catch2/catch.hpp>

#include <future>
#include <map>
#include <tuple>

#include "cpu/cpu_blur.hpp"
#include "gpu/gpu_blur.hpp"
#include "gpu/test_gpu.hpp"
#include "support/reference_blur.hpp"

using namespace gpublur;
using test::gpu;
using test::session;

namespace {

struct Run {
  KernelVariant variant;
  Target target;
  ChannelLayout layout = ChannelLayout::kAuto;
};

// One image and spec, and the kernel variants and targets that must reproduce the CPU's bytes.
struct Case {
  Image image;
  BlurSpec spec;
  std::vector<Run> runs;
};

// Auto (the tensor-core kernel where it applies), the tiled kernel where it applies and auto
// is another, the wide kernel; PTX and the naive kernel where asked.
std::vector<Run> runs_for(const BlurSpec& spec, bool with_ptx, bool with_naive) {
  std::vector<Run> runs{{KernelVariant::kAuto, Target::kCubin},
                        {KernelVariant::kWide, Target::kCubin}};
  if (variant_supports(KernelVariant::kTiled, spec) &&
      variant_supports(KernelVariant::kMma, spec, gpu().arch.number(),
                       ChannelLayout::kInterleaved)) {
    runs.push_back({KernelVariant::kTiled, Target::kCubin});
  }
  if (with_ptx) runs.push_back({KernelVariant::kAuto, Target::kPtx});
  if (with_naive) runs.push_back({KernelVariant::kNaive, Target::kCubin});
  return runs;
}

// The kernel as the program generates it for this GPU.
GeneratedKernel kernel_for(const BlurSpec& spec, const Run& run) {
  return generate_kernel(spec, run.variant, SampleFormat::k8, gpu().arch.number(), run.layout);
}

void require_gpu_equals_cpu(const std::vector<Case>& cases) {
  // Compile every distinct (source, target) once, all at the same time.
  using Key = std::pair<std::string, Target>;
  std::map<Key, std::shared_future<CompiledKernel>> compiled;
  const NvrtcVersion nvrtc = nvrtc_version();
  for (const Case& c : cases) {
    for (const Run& run : c.runs) {
      GeneratedKernel kernel = kernel_for(c.spec, run);
      Key key{kernel.source, run.target};
      if (compiled.count(key)) continue;
      const CompilePlan plan = plan_compile(gpu().arch, run.target, nvrtc);
      compiled.emplace(std::move(key), std::async(std::launch::async, [kernel, plan] {
                                         return compile_kernel(kernel, plan);
                                       }).share());
    }
  }
  for (const Case& c : cases) {
    const Image cpu = blur_on_cpu(c.image, c.spec);
    for (const Run& run : c.runs) {
      const GeneratedKernel kernel = kernel_for(c.spec, run);
      CAPTURE(c.image.width, c.image.height, c.image.channels, c.spec.x.size,
              border_name(c.spec.border), variant_name(kernel.schedule.variant),
              kernel.schedule.planes(), target_name(run.target));
      const Image out =
          blur_on_gpu(session(), c.image, kernel, compiled.at({kernel.source, run.target}).get())
              .output;
      REQUIRE(out.pixels.size() == cpu.pixels.size());
      REQUIRE(out.pixels == cpu.pixels);
    }
  }
}

}  // namespace

TEST_CASE("GPU == CPU for kernel sizes 1 to 31, 1-4 channels, awkward shapes", "[gpu]") {
  std::vector<Case> cases;
  for (int channels = 1; channels <= 4; ++channels) {
    for (auto [width, height] : {std::pair{1, 1}, {17, 3}, {1000, 777}}) {
      const Image in =
          test::random_image(width, height, channels, static_cast<std::uint32_t>(width + channels));
      for (int size = 1; size <= 31; size += 2) {
        const BlurSpec spec = test::make_test_spec(size, size / 4.0 + 0.3, channels);
        const bool sampled = size == 1 || size == 7 || size == 31;  // PTX JIT and naive: a sample
        cases.push_back({in, spec, runs_for(spec, sampled, sampled || size <= 5)});
      }
    }
  }
  require_gpu_equals_cpu(cases);
}

TEST_CASE("GPU == CPU for every border, radius beyond the image", "[gpu]") {
  std::vector<Case> cases;
  for (Border border :
       {Border::kClamp, Border::kReflect, Border::kReflect101, Border::kWrap, Border::kConstant}) {
    for (auto [width, height, channels, size] :
         std::vector<std::tuple<int, int, int, int>>{{3, 2, 4, 31},
                                                     {1, 50, 3, 9},
                                                     {50, 1, 2, 9},
                                                     {13, 42, 3, 7},
                                                     {176, 113, 4, 15},
                                                     {1009, 13, 1, 31},
                                                     {257, 263, 3, 5},
                                                     {61, 37, 1, 7},   // the k16 narrow
                                                     {70, 9, 4, 3},    // product (halo <= 4)
                                                     {64, 20, 1, 7},   // narrow kernels' steps
                                                     {24, 11, 4, 7},   // wholly outside the
                                                     {95, 8, 1, 7},    // image, filled from the
                                                     {32, 5, 3, 5},    // edge's own columns
                                                     {2, 30, 1, 7}}) {
      const Image in = test::random_image(width, height, channels, 99);
      const BlurSpec spec =
          test::make_test_spec(size, size / 5.0 + 0.2, channels, border, {7, 250, 128, 3});
      cases.push_back({in, spec, runs_for(spec, size == 7, true)});
    }
  }
  require_gpu_equals_cpu(cases);
}

TEST_CASE("GPU == CPU for large kernels, both sides of the mma and tiled kernels' limits", "[gpu]") {
  std::vector<Case> cases;
  for (auto [size, channels] :
       std::vector<std::pair<int, int>>{
           {65, 1}, {67, 1}, {49, 1}, {51, 1}, {43, 3}, {33, 4}, {101, 3}, {255, 4}, {255, 1}}) {
    const BlurSpec spec = test::make_test_spec(size, size / 6.0, channels, Border::kReflect101);
    cases.push_back(
        {test::random_image(700, 300, channels, 5), spec, runs_for(spec, false, size <= 101)});
  }
  require_gpu_equals_cpu(cases);
}

// The tensor-core kernel's large-kernel schedules (2 stages, the gathered tap table, wide
// tiles, fewer warps): every border, images smaller than the kernel, and images of many tiles.
TEST_CASE("GPU == CPU for 101 and 255 on every border and shape", "[gpu]") {
  std::vector<Case> cases;
  for (Border border :
       {Border::kClamp, Border::kReflect, Border::kReflect101, Border::kWrap, Border::kConstant}) {
    for (auto [width, height, channels, size] :
         std::vector<std::tuple<int, int, int, int>>{{3, 2, 3, 255},
                                                     {40, 301, 4, 101},
                                                     {1009, 13, 1, 255},
                                                     {2111, 97, 3, 101},
                                                     {1500, 280, 2, 255}}) {
      const Image in = test::random_image(width, height, channels, 77);
      const BlurSpec spec =
          test::make_test_spec(size, size / 6.0, channels, border, {7, 250, 128, 3});
      cases.push_back({in, spec, runs_for(spec, size == 101 && channels == 4, false)});
    }
  }
  require_gpu_equals_cpu(cases);
}

// Planes (kernels/planes.cu) whatever the radius, and the interleaved rows where auto takes
// planes: every channel count, border (one constant per channel) and width modulo 4.
TEST_CASE("GPU == CPU for planar and interleaved blurs of several channels", "[gpu]") {
  std::vector<Case> cases;
  for (Border border : {Border::kClamp, Border::kReflect101, Border::kWrap, Border::kConstant}) {
    for (auto [width, height, channels, size] :
         std::vector<std::tuple<int, int, int, int>>{{1, 5, 2, 7},
                                                     {6, 3, 3, 9},
                                                     {333, 97, 4, 7},
                                                     {1030, 70, 3, 65},
                                                     {517, 301, 2, 101},
                                                     {1921, 40, 4, 255}}) {
      const Image in = test::random_image(width, height, channels, 55);
      const BlurSpec spec =
          test::make_test_spec(size, size / 6.0, channels, border, {7, 250, 128, 3});
      if (!variant_supports(KernelVariant::kMma, spec, gpu().arch.number(),
                            ChannelLayout::kInterleaved)) {
        continue;
      }
      cases.push_back({in, spec,
                       {{KernelVariant::kMma, Target::kCubin, ChannelLayout::kPlanes},
                        {KernelVariant::kMma, Target::kCubin, ChannelLayout::kInterleaved}}});
    }
  }
  require_gpu_equals_cpu(cases);
}

TEST_CASE("GPU == CPU for anisotropic kernels", "[gpu]") {
  std::vector<Case> cases;
  for (auto [sx, sy, channels] : std::vector<std::tuple<int, int, int>>{
           {7, 1, 3}, {1, 9, 1}, {3, 31, 4}, {31, 5, 2}, {15, 65, 1}, {101, 5, 3}, {5, 101, 3}, {255, 3, 1}, {3, 255, 2}}) {
    const BlurSpec spec =
        test::make_test_spec(sx, sx / 5.0 + 0.3, sy, sy / 5.0 + 0.3, channels, Border::kReflect101);
    cases.push_back({test::random_image(613, 211, channels, 31), spec,
                     runs_for(spec, sx == 7, sx <= 31 && sy <= 31)});
  }
  require_gpu_equals_cpu(cases);
}

TEST_CASE("GPU == CPU on images of many tiles, where interior blocks take the fast path", "[gpu]") {
  std::vector<Case> cases;
  for (auto [size, channels] :
       std::vector<std::pair<int, int>>{{3, 3}, {7, 1}, {7, 4}, {15, 2}, {31, 3}}) {
    const BlurSpec spec = test::make_test_spec(size, size / 5.0, channels, Border::kReflect);
    cases.push_back(
        {test::random_image(2111, 523, channels, 21), spec, runs_for(spec, size == 7, false)});
  }
  // The constant border's top and bottom warps: their rows outside the image are stored as the
  // constant (one value per channel, so each channel count's pattern shows), not copied.
  for (auto [size, channels] :
       std::vector<std::pair<int, int>>{{3, 3}, {7, 3}, {7, 4}, {5, 2}, {15, 3}}) {
    const BlurSpec spec =
        test::make_test_spec(size, size / 5.0, channels, Border::kConstant, {7, 250, 128, 3});
    cases.push_back(
        {test::random_image(1283, 301, channels, 22), spec, runs_for(spec, size == 7, false)});
  }
  require_gpu_equals_cpu(cases);
}

TEST_CASE("GPU result is within 1 LSB of the float64 reference", "[gpu]") {
  const Image in = test::random_image(61, 47, 3, 11);
  const BlurSpec spec = test::make_test_spec(7, 1.5, 3);
  const GeneratedKernel kernel = kernel_for(spec, Run{KernelVariant::kAuto, Target::kCubin});
  const CompiledKernel compiled =
      compile_kernel(kernel, plan_compile(gpu().arch, Target::kCubin, nvrtc_version()));
  const Image out = blur_on_gpu(session(), in, kernel, compiled).output;
  CHECK(test::max_abs_diff(out, test::reference_blur(in, 7, 1.5, Border::kClamp, {})) <= 1.0);
}

TEST_CASE("a loaded kernel blurs images in place, pinned, again and again", "[gpu]") {
  const BlurSpec spec = test::make_test_spec(7, 1.5, 3);
  const GeneratedKernel kernel = kernel_for(spec, Run{KernelVariant::kAuto, Target::kCubin});
  const CompiledKernel compiled =
      compile_kernel(kernel, plan_compile(gpu().arch, Target::kCubin, nvrtc_version()));
  const GpuKernel loaded(session(), kernel, compiled);
  for (const auto& [width, height] : std::vector<std::pair<int, int>>{{1920, 1080}, {5, 3}}) {
    CAPTURE(width, height);
    Image image = test::random_image(width, height, 3, 17);
    const Image expected = blur_on_cpu(image, spec);
    const GpuTimes times = loaded.blur_in_place(image);
    CHECK(times.pinned);  // heap memory: the driver pins it, so the copies are direct DMA
    CHECK(image.pixels == expected.pixels);
  }
}
