// srgb_test.cpp — the sRGB curve, its 8- and 16-bit tables, and blurring in linear light
// against a float64 reference that decodes, convolves and encodes in doubles.
#include <catch2/catch.hpp>

#include <cmath>

#include "cpu/cpu_blur.hpp"
#include "image/srgb.hpp"
#include "support/reference_blur.hpp"

using namespace gpublur;

TEST_CASE("the sRGB curve", "[srgb]") {
  CHECK(srgb_to_linear(0.0) == 0.0);
  CHECK(srgb_to_linear(1.0) == Approx(1.0));
  CHECK(srgb_to_linear(0.5) == Approx(0.2140411).epsilon(1e-6));
  CHECK(srgb_to_linear(0.04) == Approx(0.04 / 12.92));  // the linear toe
  for (double v = 0; v <= 1.0; v += 0.01) CHECK(linear_to_srgb(srgb_to_linear(v)) == Approx(v).margin(1e-12));
}

TEST_CASE("8-bit sRGB survives the trip through 16-bit linear light exactly", "[srgb]") {
  Image in = make_image(256, 1, 1);
  for (int v = 0; v < 256; ++v) in.pixels[static_cast<std::size_t>(v)] = static_cast<std::uint8_t>(v);
  CHECK(encode_srgb8(decode_srgb(in)).pixels == in.pixels);
}

TEST_CASE("16-bit sRGB loses at most 7 units near black in 16-bit linear light", "[srgb]") {
  // The toe's slope is 1/12.92: there, 16-bit linear steps are 13 sRGB steps apart.
  Image16 in = make_raster<std::uint16_t>(256, 256, 1);
  for (int v = 0; v < 65536; ++v) in.pixels[static_cast<std::size_t>(v)] = static_cast<std::uint16_t>(v);
  const Image16 back = encode_srgb16(decode_srgb(in));
  int worst = 0;
  for (std::size_t i = 0; i < in.pixels.size(); ++i) worst = std::max(worst, std::abs(back.pixels[i] - in.pixels[i]));
  CHECK(worst <= 7);
}

TEST_CASE("alpha is not a colour: it keeps its value", "[srgb]") {
  Image in = make_image(2, 1, 4);
  in.pixels = {10, 128, 250, 77, 0, 255, 1, 200};
  const Image16 lin = decode_srgb(in);
  CHECK(lin.pixels[3] == 77 * 257);
  CHECK(lin.pixels[7] == 200 * 257);
  CHECK(encode_srgb8(lin).pixels == in.pixels);
}

TEST_CASE("blurring in linear light is within 1 LSB of the float64 reference", "[srgb]") {
  const auto [size, sigma, channels] = GENERATE(table<int, double, int>({{7, 1.5, 3}, {15, 3.0, 1}, {31, 5.0, 4}}));
  CAPTURE(size, sigma, channels);
  const Image in = test::random_image(41, 27, channels, 3);
  const BlurSpec spec = test::make_test_spec(size, sigma, channels);
  const Image out = encode_srgb8(blur_on_cpu(decode_srgb(in), spec));

  Raster<double> linear = make_raster<double>(in.width, in.height, in.channels);
  const auto c = static_cast<std::size_t>(channels);
  auto alpha = [&](std::size_t i) { return (channels == 2 || channels == 4) && i % c == c - 1; };
  for (std::size_t i = 0; i < in.pixels.size(); ++i) {
    const double v = in.pixels[i] / 255.0;
    linear.pixels[i] = alpha(i) ? v : srgb_to_linear(v);
  }
  const std::vector<double> blurred = test::reference_blur(linear, size, sigma, Border::kClamp, {});
  std::vector<double> reference(blurred.size());
  for (std::size_t i = 0; i < blurred.size(); ++i) {
    reference[i] = 255.0 * (alpha(i) ? blurred[i] : linear_to_srgb(blurred[i]));
  }
  CHECK(test::max_abs_diff(out, reference) <= 1.0);
}

TEST_CASE("a constant image stays constant in linear light", "[srgb]") {
  for (int v = 0; v < 256; ++v) {
    Image in = make_image(9, 7, 3);
    std::fill(in.pixels.begin(), in.pixels.end(), static_cast<std::uint8_t>(v));
    REQUIRE(encode_srgb8(blur_on_cpu(decode_srgb(in), test::make_test_spec(5, 1.0, 3))).pixels == in.pixels);
  }
}
