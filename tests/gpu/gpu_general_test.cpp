// gpu_general_test.cpp — [gpu] the general kernel (16-bit, floating point, premultiplied alpha,
// and 8-bit when asked for) equals the CPU byte for byte, from CUBIN and from PTX; and the CLI's
// GPU runs of 16-bit, HDR, --linear and premultiplied images write the CPU's files.
#include <catch2/catch.hpp>

#include <cstring>

#include "codecs/image_decode.hpp"
#include "codecs/image_encode.hpp"
#include "cpu/cpu_blur.hpp"
#include "gpu/cli_bytes.hpp"
#include "gpu/parallel_compiler.hpp"
#include "gpu/test_gpu.hpp"
#include "support/reference_blur.hpp"
#include "support/temp_dir.hpp"

using namespace gpublur;
using test::gpu;
using test::session;

namespace {

template <typename Sample>
struct GeneralCase {
  Raster<Sample> image;
  BlurSpec spec;
  SampleFormat format;
};

template <typename Sample>
void require_general_equals_cpu(const std::vector<GeneralCase<Sample>>& cases) {
  test::ParallelCompiler compiler;
  std::vector<GeneratedKernel> kernels;
  for (const auto& c : cases) {
    kernels.push_back(generate_kernel(c.spec, KernelVariant::kGeneral, c.format));
    for (Target t : {Target::kCubin, Target::kPtx}) compiler.request(kernels.back(), t);
  }
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i];
    const Raster<Sample> cpu = blur_on_cpu(c.image, c.spec);
    for (Target t : {Target::kCubin, Target::kPtx}) {
      CAPTURE(c.image.width, c.image.height, c.image.channels, c.spec.x.size, c.spec.y.size,
              border_name(c.spec.border), c.spec.premultiplied, kernels[i].name, target_name(t));
      const Raster<Sample> out =
          blur_on_gpu(session(), c.image, kernels[i], compiler.get(kernels[i], t)).output;
      REQUIRE(out.pixels.size() == cpu.pixels.size());
      REQUIRE(std::memcmp(out.pixels.data(), cpu.pixels.data(), cpu.byte_count()) == 0);
    }
  }
}

const Border kBorders[] = {Border::kClamp, Border::kReflect, Border::kReflect101, Border::kWrap,
                           Border::kConstant};

// Shapes from one pixel to more than one block row, with the radius beyond the image in some.
const std::vector<std::pair<int, int>> kShapes = {{1, 1}, {3, 2}, {17, 3}, {1, 40}, {613, 211}};

template <typename Sample>
Raster<Sample> random_raster(int width, int height, int channels, std::uint32_t seed) {
  if constexpr (sizeof(Sample) == 1) {
    return test::random_image(width, height, channels, seed);
  } else {
    return test::random_image16(width, height, channels, seed);
  }
}

// Alpha 0 on a band of columns (hidden colour beneath), so premultiplying matters.
template <typename Sample>
Raster<Sample> with_transparent_band(Raster<Sample> image) {
  const auto c = static_cast<std::size_t>(image.channels);
  for (std::size_t i = 0; i < image.pixels.size(); i += c) {
    if ((i / c) % static_cast<std::size_t>(image.width) < static_cast<std::size_t>(image.width) / 3) {
      image.pixels[i + c - 1] = 0;
    }
  }
  return image;
}

template <typename Sample>
std::vector<GeneralCase<Sample>> integer_cases(SampleFormat format, bool premultiplied) {
  std::vector<GeneralCase<Sample>> cases;
  const std::vector<int> channel_counts =
      premultiplied ? std::vector<int>{2, 4} : std::vector<int>{1, 2, 3, 4};
  std::uint32_t seed = 1;
  for (int channels : channel_counts) {
    for (auto [width, height] : kShapes) {
      for (int size : {1, 7, 31}) {
        for (Border border : kBorders) {
          Raster<Sample> image = random_raster<Sample>(width, height, channels, ++seed);
          if (premultiplied) image = with_transparent_band(image);
          BlurSpec spec =
              test::make_test_spec(size, size / 5.0 + 0.3, channels, border, {9, 200, 77, 140});
          spec.premultiplied = premultiplied;
          cases.push_back({image, spec, format});
        }
      }
    }
  }
  // Large and anisotropic kernels.
  for (auto [sx, sy] : {std::pair{255, 255}, {101, 5}, {3, 65}}) {
    const int channels = premultiplied ? 4 : 3;
    Raster<Sample> image = random_raster<Sample>(300, 200, channels, ++seed);
    if (premultiplied) image = with_transparent_band(image);
    BlurSpec spec = test::make_test_spec(sx, sx / 6.0, sy, sy / 6.0, channels, Border::kReflect101);
    spec.premultiplied = premultiplied;
    cases.push_back({image, spec, format});
  }
  return cases;
}

}  // namespace

TEST_CASE("general kernel == CPU: 16-bit samples", "[gpu]") {
  require_general_equals_cpu(integer_cases<std::uint16_t>(SampleFormat::k16, false));
}

TEST_CASE("general kernel == CPU: 16-bit premultiplied alpha", "[gpu]") {
  require_general_equals_cpu(integer_cases<std::uint16_t>(SampleFormat::k16, true));
}

TEST_CASE("general kernel == CPU: 8-bit premultiplied alpha", "[gpu]") {
  require_general_equals_cpu(integer_cases<std::uint8_t>(SampleFormat::k8, true));
}

TEST_CASE("general kernel == CPU: 8-bit straight, when asked for", "[gpu]") {
  auto cases = integer_cases<std::uint8_t>(SampleFormat::k8, false);
  cases.resize(40);  // a sample: the fast kernels are the ones 8-bit blurs use
  require_general_equals_cpu(cases);
}

TEST_CASE("general kernel == CPU: floating point (HDR)", "[gpu]") {
  std::vector<GeneralCase<float>> cases;
  std::uint32_t seed = 7;
  for (int channels : {1, 3}) {
    for (auto [width, height] : kShapes) {
      for (int size : {1, 7, 31}) {
        for (Border border : kBorders) {
          ImageF image = make_raster<float>(width, height, channels);
          const Image bytes = test::random_image(width, height, channels, ++seed);
          for (std::size_t i = 0; i < image.pixels.size(); ++i) {
            image.pixels[i] = bytes.pixels[i] * bytes.pixels[i] / 997.0f;  // HDR: beyond 1
          }
          cases.push_back({image,
                           test::make_test_spec(size, size / 5.0 + 0.3, channels, border,
                                                {9, 200, 77, 140}),
                           SampleFormat::kFloat});
        }
      }
    }
  }
  require_general_equals_cpu(cases);
}

TEST_CASE("the CLI writes the CPU's bytes from the GPU: 16-bit, HDR, --linear, alpha", "[gpu]") {
  const test::TempDir tmp;
  Image rgba = with_transparent_band(test::random_image(301, 97, 4, 3));
  write_image(rgba, tmp.file("rgba.png"), {});
  write_image(test::random_image16(211, 89, 3, 4), tmp.file("rgb16.png"), {});
  write_image(with_transparent_band(test::random_image16(150, 60, 2, 5)), tmp.file("ga16.png"), {});
  ImageF hdr = make_raster<float>(120, 70, 3);
  for (std::size_t i = 0; i < hdr.pixels.size(); ++i) hdr.pixels[i] = static_cast<float>(i % 97) / 13.0f;
  write_image(hdr, tmp.file("glow.hdr"), {});

  struct Run {
    const char* input;
    const char* output;
    bool linear;
  };
  for (const Run& r : {Run{"rgba.png", "out.png", false}, Run{"rgba.png", "out.png", true},
                       Run{"rgb16.png", "out.png", false}, Run{"rgb16.png", "out.png", true},
                       Run{"ga16.png", "out.png", false}, Run{"glow.hdr", "out.hdr", false}}) {
    CAPTURE(r.input, r.linear);
    std::string bytes[2];
    for (int i = 0; i < 2; ++i) {
      std::vector<std::string> args{tmp.file(r.input),
                                    tmp.file(std::to_string(i) + r.output),
                                    "--size",
                                    "9",
                                    "--no-cache",
                                    "--device",
                                    i == 0 ? "gpu" : "cpu"};
      if (r.linear) args.push_back("--linear");
      bytes[i] = test::cli_output_bytes(args);
    }
    REQUIRE(!bytes[0].empty());
    CHECK(bytes[0] == bytes[1]);
  }
}
