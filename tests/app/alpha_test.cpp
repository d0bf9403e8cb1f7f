// alpha_test.cpp — premultiplied alpha: within 1 LSB of the float64 premultiplied Gaussian,
// hidden colour under transparent pixels never shows, fully transparent areas stay so, and an
// opaque image gives the same bytes with either --alpha.
#include <catch2/catch.hpp>

#include <limits>
#include <sstream>

#include "app/run.hpp"
#include "codecs/image_decode.hpp"
#include "codecs/image_encode.hpp"
#include "cpu/cpu_blur.hpp"
#include "support/parse_args.hpp"
#include "support/reference_blur.hpp"
#include "support/temp_dir.hpp"

using namespace gpublur;

namespace {

// A random image whose alpha is 0 on the left third, random in the middle, 255 on the right.
template <typename Sample>
Raster<Sample> banded_alpha(const Raster<Sample>& random) {
  Raster<Sample> image = random;
  const auto c = static_cast<std::size_t>(image.channels);
  const Sample opaque = std::numeric_limits<Sample>::max();
  for (int y = 0; y < image.height; ++y) {
    for (int x = 0; x < image.width; ++x) {
      Sample& a = image.pixels[(static_cast<std::size_t>(y) * static_cast<std::size_t>(image.width) +
                                static_cast<std::size_t>(x)) * c + c - 1];
      if (x < image.width / 3) a = 0;
      if (x >= 2 * image.width / 3) a = opaque;
    }
  }
  return image;
}

template <typename Sample>
BlurSpec premultiplied_spec(int size, double sigma, int channels, Border border,
                            std::array<std::uint8_t, 4> value) {
  BlurSpec spec = test::make_test_spec(size, sigma, channels, border, value);
  spec.premultiplied = true;
  return spec;
}

}  // namespace

TEST_CASE("premultiplied blur is within 1 LSB of the float64 premultiplied Gaussian", "[alpha]") {
  const auto [width, height, channels, size, sigma] = GENERATE(table<int, int, int, int, double>(
      {{45, 31, 4, 7, 1.5}, {29, 40, 2, 15, 3.0}, {3, 2, 4, 31, 5.0}, {1, 17, 2, 5, 1.0}}));
  const Border border = GENERATE(Border::kClamp, Border::kReflect101, Border::kWrap,
                                 Border::kConstant);
  CAPTURE(width, height, channels, size, sigma, border_name(border));
  const std::array<std::uint8_t, 4> value{200, 70, 90, 130};  // alpha: 70 (GA) or 130 (RGBA)
  const BlurSpec spec = premultiplied_spec<std::uint8_t>(size, sigma, channels, border, value);

  const Image in8 = banded_alpha(test::random_image(width, height, channels, 99));
  const Image out8 = blur_on_cpu(in8, spec);
  CHECK(test::max_abs_diff(out8, test::premultiplied_reference(in8, size, sigma, border, value)) <=
        1.0);

  const Image16 in16 = banded_alpha(test::random_image16(width, height, channels, 98));
  const Image16 out16 = blur_on_cpu(in16, spec);
  CHECK(test::max_abs_diff(out16, test::premultiplied_reference(in16, size, sigma, border,
                                                                value)) <= 1.0);
}

TEST_CASE("hidden colour never bleeds, and transparent areas stay transparent", "[alpha]") {
  // Left half: bright red hidden under alpha 0; right half: opaque black.
  Image in = make_image(40, 10, 4);
  for (std::size_t i = 0; i < in.pixels.size(); i += 4) {
    const bool left = (i / 4) % 40 < 20;
    in.pixels[i] = left ? 255 : 0;
    in.pixels[i + 3] = left ? 0 : 255;
  }
  BlurSpec spec = test::make_test_spec(9, 2.0, 4);
  spec.premultiplied = true;
  const Image out = blur_on_cpu(in, spec);
  for (int y = 0; y < 10; ++y) {
    for (int x = 0; x < 40; ++x) {
      const std::uint8_t* p = &out.pixels[(static_cast<std::size_t>(y) * 40 + static_cast<std::size_t>(x)) * 4];
      CAPTURE(x, y);
      CHECK(p[0] == 0);  // no red anywhere: it was all under alpha 0
      if (x < 20 - 4) CHECK((p[0] | p[1] | p[2] | p[3]) == 0);  // out of reach of any alpha
    }
  }
  spec.premultiplied = false;  // the straight blur shows the hidden red at the boundary
  const Image straight = blur_on_cpu(in, spec);
  CHECK(straight.pixels[(5 * 40 + 20) * 4] > 0);
}

TEST_CASE("an opaque image gives the same bytes with either --alpha", "[alpha]") {
  const test::TempDir tmp;
  const std::string& dir = tmp.path;
  Image in = test::random_image(37, 23, 4, 5);
  for (std::size_t i = 3; i < in.pixels.size(); i += 4) in.pixels[i] = 255;
  write_image(in, dir + "/opaque.png", {});
  auto blur_with = [&](const char* alpha, const std::string& out) {
    const Request o = test::parse_args(
        {dir + "/opaque.png", out, "--size", "7", "--device", "cpu", "--alpha", alpha});
    std::ostringstream sink;
    REQUIRE(run(o, sink, sink) == 0);
    return decode_image(read_file(out), out).image.get<Image>().pixels;
  };
  CHECK(blur_with("premultiplied", dir + "/p.png") == blur_with("straight", dir + "/s.png"));
}
