// gpu_stack_test.cpp — [gpu] a stack of images of one shape, blurred by one launch
// (GpuKernel::blur_in_place of a vector), gives every image the CPU's bytes for that image alone:
// each image's borders are its own edges, never its neighbours' rows. Every kernel variant, a
// planar blur (its planes are layers of the stack too), the general kernel's 16-bit samples, and
// dense matrices (dense-mma's tiles wholly inside an image copied without the border rule, and
// those at its edges with it).
#include <catch2/catch.hpp>

#include <array>
#include <cstring>
#include <future>
#include <tuple>

#include "base/errors.hpp"
#include "cpu/cpu_blur.hpp"
#include "gpu/test_gpu.hpp"
#include "ops/blur_parameters.hpp"
#include "support/reference_blur.hpp"

using namespace gpublur;
using test::gpu;
using test::session;

namespace {

struct StackCase {
  BlurSpec spec;
  KernelVariant variant;
  SampleFormat format = SampleFormat::k8;
};

template <typename Sample>
std::vector<Raster<Sample>> random_stack(int count, int width, int height, int channels) {
  std::vector<Raster<Sample>> images;
  for (int i = 0; i < count; ++i) {
    const auto seed = static_cast<std::uint32_t>(100 + i);
    if constexpr (sizeof(Sample) == 1) {
      images.push_back(test::random_image(width, height, channels, seed));
    } else {
      images.push_back(test::random_image16(width, height, channels, seed));
    }
  }
  return images;
}

// Every shape's stack through one loaded kernel, each image against the CPU's blur of it.
template <typename Sample>
void require_stacks_equal_cpu(const StackCase& c, const CompiledKernel& compiled,
                              const GeneratedKernel& kernel) {
  const GpuKernel loaded(session(), kernel, compiled);
  // Three images (a narrow kernel's many tiles), tall thin ones whose radius passes the image
  // (a wrong border would read the next image), a stack of one, and three wide enough for
  // dense-mma's tiles wholly inside a gray image (a warp's 144 bytes from 8 before its 128).
  for (auto [count, width, height] : std::vector<std::tuple<int, int, int>>{
           {3, 203, 77}, {4, 1, 40}, {2, 37, 3}, {1, 50, 20}, {3, 300, 70}}) {
    CAPTURE(count, width, height, c.spec.x.size, c.spec.channels, border_name(c.spec.border),
            variant_name(kernel.schedule.variant), kernel.schedule.planes());
    std::vector<Raster<Sample>> images =
        random_stack<Sample>(count, width, height, c.spec.channels);
    std::vector<Raster<Sample>> expected;
    for (const auto& image : images) expected.push_back(blur_on_cpu(image, c.spec));
    loaded.blur_in_place(images);
    for (std::size_t i = 0; i < images.size(); ++i) {
      CAPTURE(i);
      REQUIRE(images[i].pixels.size() == expected[i].pixels.size());
      REQUIRE(std::memcmp(images[i].pixels.data(), expected[i].pixels.data(),
                          expected[i].byte_count()) == 0);
    }
  }
}

}  // namespace

TEST_CASE("a stack of images in one launch: each gets its own blur's bytes", "[gpu]") {
  const int arch = gpu().arch.number();
  const std::array<std::uint8_t, 4> value{7, 250, 128, 3};
  std::vector<StackCase> cases;
  for (auto [size, channels, border] : std::vector<std::tuple<int, int, Border>>{
           {7, 1, Border::kClamp},
           {7, 3, Border::kReflect101},
           {7, 4, Border::kConstant},
           {3, 3, Border::kWrap},
           {31, 3, Border::kReflect},
           {101, 3, Border::kConstant},  // planes: the constant of each plane's own channel
           {65, 4, Border::kClamp}}) {
    const BlurSpec spec = test::make_test_spec(size, size / 5.0, channels, border, value);
    cases.push_back({spec, KernelVariant::kAuto});
    if (size <= 7) {
      cases.push_back({spec, KernelVariant::kWide});
      cases.push_back({spec, KernelVariant::kNaive});
      if (variant_supports(KernelVariant::kTiled, spec))
        cases.push_back({spec, KernelVariant::kTiled});
    }
  }
  cases.push_back({test::make_test_spec(7, 1.5, 3, Border::kReflect101), KernelVariant::kGeneral,
                   SampleFormat::k16});
  for (auto [text, channels, border] : std::vector<std::tuple<const char*, int, Border>>{
           {"-1 -1 -1; -1 8 -1; -1 -1 -1", 1, Border::kReflect101},
           {"-1 -1 -1; -1 8 -1; -1 -1 -1", 3, Border::kClamp},
           {"55 -4 3 -3 -1; -2 -5 5 1 -4; -2 3 5 -4 2; 2 2 3 -1 0; 5 -3 -4 -3 2", 3, Border::kWrap},
           {"55 -4 3 -3 -1; -2 -5 5 1 -4; -2 3 5 -4 2; 2 2 3 -1 0; 5 -3 -4 -3 2", 4,
            Border::kConstant}}) {
    BlurParameters p;
    p.operation = Operation::kMatrix;
    p.matrix = parse_matrix_text(text);
    p.border = border;
    p.border_value = value;
    const FilterSpec spec = make_blur_spec(p, channels);
    cases.push_back({spec, KernelVariant::kAuto});
    // The tensor cores' kernel too where auto leaves the matrix to another (RGBA).
    if (choose_schedule(spec, KernelVariant::kAuto, SampleFormat::k8, arch).variant !=
            KernelVariant::kDenseMma &&
        variant_supports(KernelVariant::kDenseMma, spec, arch))
      cases.push_back({spec, KernelVariant::kDenseMma});
  }
  cases.push_back({test::make_test_spec(9, 2.0, 2, Border::kConstant, value),
                   KernelVariant::kGeneral, SampleFormat::k16});

  std::vector<GeneratedKernel> kernels;
  std::vector<std::shared_future<CompiledKernel>> compiled;
  const CompilePlan plan = plan_compile(gpu().arch, Target::kCubin, nvrtc_version());
  for (const StackCase& c : cases) {
    kernels.push_back(generate_kernel(c.spec, c.variant, c.format, arch));
    compiled.push_back(std::async(std::launch::async, [kernel = kernels.back(), plan] {
                         return compile_kernel(kernel, plan);
                       }).share());
  }
  bool planar = false;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    planar = planar || kernels[i].schedule.planes() > 0;
    if (cases[i].format == SampleFormat::k16) {
      require_stacks_equal_cpu<std::uint16_t>(cases[i], compiled[i].get(), kernels[i]);
    } else {
      require_stacks_equal_cpu<std::uint8_t>(cases[i], compiled[i].get(), kernels[i]);
    }
  }
  CHECK(planar == (arch >= 80));  // the planar stacks ran where the tensor-core kernel runs
}

TEST_CASE("a stack of images of different shapes is refused before any work", "[gpu]") {
  const BlurSpec spec = test::make_test_spec(7, 1.5, 3);
  const GeneratedKernel kernel =
      generate_kernel(spec, KernelVariant::kAuto, SampleFormat::k8, gpu().arch.number());
  const GpuKernel loaded(
      session(), kernel,
      compile_kernel(kernel, plan_compile(gpu().arch, Target::kCubin, nvrtc_version())));
  std::vector<Image> images = random_stack<std::uint8_t>(2, 30, 20, 3);
  images.push_back(test::random_image(30, 21, 3, 9));
  const std::vector<Image> before = images;
  CHECK_THROWS_AS(loaded.blur_in_place(images), InternalError);
  CHECK(images[0].pixels == before[0].pixels);  // nothing was touched
  std::vector<Image> none;
  CHECK(loaded.blur_in_place(none).kernel_ms == 0);
}
