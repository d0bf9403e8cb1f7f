// cpu_blur_test.cpp — the CPU blur against an independent float64 reference (<= 1 LSB), against
// its own integer arithmetic written out per sample (exactly), exact constancy, and independence
// from the thread count.
#include <catch2/catch.hpp>

#include <cmath>

#include "arithmetic.cuh"
#include "cpu/cpu_blur.hpp"
#include "ops/border.hpp"
#include "ops/policy_taps.hpp"
#include "support/reference_blur.hpp"

using namespace gpublur;

TEST_CASE("CPU blur is within 1 LSB of the float64 Gaussian", "[cpu_blur]") {
  const auto [width, height, channels, size, sigma] =
      GENERATE(table<int, int, int, int, double>({{1, 1, 1, 7, 1.5},
                                                  {13, 42, 3, 7, 1.5},
                                                  {176, 113, 4, 5, 1.0},
                                                  {17, 3, 2, 31, 5.0},
                                                  {64, 48, 3, 31, 5.0},
                                                  {3, 2, 4, 31, 5.0},
                                                  {1, 29, 1, 9, 2.0},
                                                  {40, 30, 1, 1, 0.5},
                                                  {33, 21, 3, 15, 0.3},
                                                  {50, 40, 4, 21, 20.0}}));
  const Border border = GENERATE(Border::kClamp, Border::kReflect, Border::kReflect101,
                                 Border::kWrap, Border::kConstant);
  CAPTURE(width, height, channels, size, sigma, border_name(border));
  const std::array<std::uint8_t, 4> value{200, 10, 128, 255};
  const Image in = test::random_image(width, height, channels, 1234);
  const Image out = blur_on_cpu(in, test::make_test_spec(size, sigma, channels, border, value));
  CHECK(test::max_abs_diff(out, test::reference_blur(in, size, sigma, border, value)) <= 1.0);
}

TEST_CASE("wide kernels are within 1 LSB of the float64 Gaussian", "[cpu_blur]") {
  const auto [size, sigma, border] =
      GENERATE(table<int, double, Border>({{101, 16.0, Border::kReflect101},
                                           {255, 42.0, Border::kClamp},
                                           {255, 100.0, Border::kWrap},
                                           {127, 8.0, Border::kConstant}}));
  CAPTURE(size, sigma, border_name(border));
  const Image in = test::random_image(37, 23, 3, 5);
  const std::array<std::uint8_t, 4> value{255, 0, 128, 0};
  const Image out = blur_on_cpu(in, test::make_test_spec(size, sigma, 3, border, value));
  CHECK(test::max_abs_diff(out, test::reference_blur(in, size, sigma, border, value)) <= 1.0);
}

TEST_CASE("anisotropic kernels are within 1 LSB of the float64 Gaussian", "[cpu_blur]") {
  const auto [size_x, sigma_x, size_y, sigma_y, channels] =
      GENERATE(table<int, double, int, double, int>(
          {{7, 1.5, 1, 0.5, 3}, {1, 0.5, 9, 2.0, 1}, {3, 0.8, 31, 6.0, 4}, {25, 4.0, 5, 1.0, 2}}));
  const Border border = GENERATE(Border::kClamp, Border::kReflect101, Border::kConstant);
  CAPTURE(size_x, sigma_x, size_y, sigma_y, channels, border_name(border));
  const Image in = test::random_image(45, 38, channels, 77);
  const std::array<std::uint8_t, 4> value{30, 60, 90, 120};
  const Image out = blur_on_cpu(
      in, test::make_test_spec(size_x, sigma_x, size_y, sigma_y, channels, border, value));
  CHECK(test::max_abs_diff(
            out, test::reference_blur(in, size_x, sigma_x, size_y, sigma_y, border, value)) <= 1.0);
}

TEST_CASE("a constant image stays exactly constant", "[cpu_blur]") {
  for (int v : {0, 1, 127, 254, 255}) {
    Image in = make_image(37, 23, 3);
    std::fill(in.pixels.begin(), in.pixels.end(), static_cast<std::uint8_t>(v));
    for (int size : {1, 7, 31}) {
      const Image out = blur_on_cpu(in, test::make_test_spec(size, size / 3.0 + 0.1, 3));
      REQUIRE(out.pixels == in.pixels);
    }
  }
}

TEST_CASE("rounding is to nearest, not truncation", "[cpu_blur]") {
  // A 1-pixel impulse: truncation would lose the mass of every tail tap.
  Image in = make_image(9, 9, 1);
  in.pixels[4 * 9 + 4] = 255;
  const Image out = blur_on_cpu(in, test::make_test_spec(3, 0.8, 1));
  const auto ref = test::reference_blur(in, 3, 0.8, Border::kClamp, {});
  CHECK(test::max_abs_diff(out, ref) <= 0.51);  // 0.5 rounding + tap quantisation
}

TEST_CASE("result does not depend on the thread count", "[cpu_blur]") {
  const Image in = test::random_image(301, 97, 3, 7);
  const BlurSpec spec = test::make_test_spec(11, 2.0, 3, Border::kReflect101);
  const Image one = blur_on_cpu(in, spec, 1);
  CHECK(blur_on_cpu(in, spec, 3).pixels == one.pixels);
  CHECK(blur_on_cpu(in, spec, 16).pixels == one.pixels);
}

TEST_CASE("16-bit images are within 1 LSB (16-bit) of the float64 Gaussian", "[cpu_blur]") {
  const auto [width, height, channels, size, sigma] =
      GENERATE(table<int, int, int, int, double>({{1, 1, 1, 7, 1.5},
                                                  {13, 42, 3, 7, 1.5},
                                                  {40, 31, 4, 31, 5.0},
                                                  {3, 2, 2, 31, 5.0},
                                                  {37, 23, 1, 255, 42.0}}));
  const Border border =
      GENERATE(Border::kClamp, Border::kReflect, Border::kWrap, Border::kConstant);
  CAPTURE(width, height, channels, size, sigma, border_name(border));
  const std::array<std::uint8_t, 4> value{200, 10, 128, 255};
  const Image16 in = test::random_image16(width, height, channels, 4321);
  const Image16 out = blur_on_cpu(in, test::make_test_spec(size, sigma, channels, border, value));
  CHECK(test::max_abs_diff(out, test::reference_blur(in, size, sigma, border, value)) <= 1.0);
}

TEST_CASE("a constant 16-bit image stays exactly constant", "[cpu_blur]") {
  for (int v : {0, 1, 257, 40000, 65534, 65535}) {
    Image16 in = make_raster<std::uint16_t>(29, 17, 4);
    std::fill(in.pixels.begin(), in.pixels.end(), static_cast<std::uint16_t>(v));
    for (int size : {1, 7, 101}) {
      REQUIRE(blur_on_cpu(in, test::make_test_spec(size, size / 3.0 + 0.1, 4)).pixels == in.pixels);
    }
  }
}

TEST_CASE("HDR images are within float32 rounding of the float64 Gaussian", "[cpu_blur]") {
  const auto [size, sigma, channels, border] =
      GENERATE(table<int, double, int, Border>({{7, 1.5, 3, Border::kClamp},
                                                {31, 5.0, 1, Border::kReflect101},
                                                {5, 1.0, 4, Border::kConstant}}));
  CAPTURE(size, sigma, channels, border_name(border));
  ImageF in = make_raster<float>(29, 19, channels);
  for (std::size_t i = 0; i < in.pixels.size(); ++i)
    in.pixels[i] = static_cast<float>(i * 7919 % 1000) / 10.0f;
  const std::array<std::uint8_t, 4> value{51, 102, 153, 204};
  const ImageF out = blur_on_cpu(in, test::make_test_spec(size, sigma, channels, border, value));
  // The reference reads constant borders on the 0..255 scale; gpublur's HDR path reads v / 255.
  ImageF scaled = in;
  for (auto& p : scaled.pixels) p *= 255.0f;
  const std::vector<double> ref = test::reference_blur(scaled, size, sigma, border, value);
  double worst = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    worst = std::max(worst, std::fabs(out.pixels[i] - ref[i] / 255.0) /
                                std::max(1.0, std::fabs(ref[i] / 255.0)));
  }
  CHECK(worst <= 1e-6);
}

namespace {

// The policy's arithmetic written out per output sample, tap by tap, with no row kernels: what
// the CPU blur (fused pairs, AVX2 or not, tap-by-tap for wide kernels) must equal exactly.
template <typename Policy>
Raster<typename Policy::Sample> direct_integer_blur(const Raster<typename Policy::Sample>& in,
                                                    const BlurSpec& spec) {
  using Mid = typename Policy::Mid;
  using Sum = typename Policy::Sum;
  const auto qx = policy_taps<Policy>(spec.x), qy = policy_taps<Policy>(spec.y);
  const int rx = static_cast<int>(qx.size() / 2), ry = static_cast<int>(qy.size() / 2);
  const int w = in.width, h = in.height, c = in.channels;
  Raster<typename Policy::Sample> out = make_raster<typename Policy::Sample>(w, h, c);
  std::vector<Mid> m(static_cast<std::size_t>(w * c));
  std::vector<Sum> b(static_cast<std::size_t>(c));
  const auto constant = border_pixel<typename Policy::Sample>(spec);
  // The vertical sum at column x (-1: outside the image, where the constant border is).
  const auto vertical = [&](int y, int x, int k) {
    Mid a = 0;
    for (int j = 0; j < static_cast<int>(qy.size()); ++j) {
      const int sy = border_index(spec.border, y + j - ry, h);
      const auto* pixel = sy < 0 || x < 0 ? constant.data()
                                          : &in.pixels[static_cast<std::size_t>((sy * w + x) * c)];
      a += static_cast<Mid>(qy[static_cast<std::size_t>(j)]) *
           static_cast<Mid>(Policy::prepare(pixel, k, c));
    }
    return Policy::vertical_done(a);
  };
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      for (int k = 0; k < c; ++k) m[static_cast<std::size_t>(x * c + k)] = vertical(y, x, k);
    }
    for (int x = 0; x < w; ++x) {
      for (int k = 0; k < c; ++k) {
        Sum s = 0;
        for (int i = 0; i < static_cast<int>(qx.size()); ++i) {
          const int sx = border_index(spec.border, x + i - rx, w);
          const Mid v = sx < 0 ? vertical(y, -1, k) : m[static_cast<std::size_t>(sx * c + k)];
          s += static_cast<Sum>(qx[static_cast<std::size_t>(i)]) * static_cast<Sum>(v);
        }
        b[static_cast<std::size_t>(k)] = s;
      }
      Policy::finish(b.data(), &out.pixels[static_cast<std::size_t>((y * w + x) * c)], c);
    }
  }
  return out;
}

}  // namespace

TEST_CASE("the CPU blur's integers are the policy's, exactly, for every kernel radius",
          "[cpu_blur]") {
  // Radii 0..16 take the fused row kernels, 17 and up the tap-by-tap ones; every channel count;
  // a width that is no multiple of any vector length.
  for (int size = 1; size <= 41; size += 2) {
    for (int channels = 1; channels <= 4; ++channels) {
      CAPTURE(size, channels);
      const BlurSpec spec = test::make_test_spec(size, size / 4.0 + 0.3, channels);
      const Image in = test::random_image(37, 23, channels, static_cast<std::uint32_t>(size));
      REQUIRE(blur_on_cpu(in, spec, 1).pixels ==
              direct_integer_blur<gb_arith::Straight8>(in, spec).pixels);
      const Image16 in16 = test::random_image16(29, 11, channels, static_cast<std::uint32_t>(size));
      REQUIRE(blur_on_cpu(in16, spec, 1).pixels ==
              direct_integer_blur<gb_arith::Straight16>(in16, spec).pixels);
    }
  }
  BlurSpec premultiplied = test::make_test_spec(9, 2.0, 4);
  premultiplied.premultiplied = true;
  const Image rgba = test::random_image(41, 19, 4, 5);
  CHECK(blur_on_cpu(rgba, premultiplied, 1).pixels ==
        direct_integer_blur<gb_arith::Premultiplied8>(rgba, premultiplied).pixels);
  // Premultiplied rows are prepared as the taps' window moves down each band (not as a whole
  // image): every border, kernels taller than the image, bands on many threads.
  for (const Border border :
       {Border::kClamp, Border::kReflect, Border::kReflect101, Border::kWrap, Border::kConstant}) {
    for (const int size : {3, 9, 41, 61}) {
      for (const int height : {19, 97}) {
        CAPTURE(border_name(border), size, height);
        BlurSpec spec = test::make_test_spec(size, size / 4.0 + 0.3, 4);
        spec.premultiplied = true;
        spec.border = border;
        spec.border_value = {10, 200, 30, 128};
        const Image in8 = test::random_image(23, height, 4, 7);
        const Image expected = direct_integer_blur<gb_arith::Premultiplied8>(in8, spec);
        REQUIRE(blur_on_cpu(in8, spec, 1).pixels == expected.pixels);
        REQUIRE(blur_on_cpu(in8, spec, 0).pixels == expected.pixels);
        spec.channels = 2;
        const Image16 in16 = test::random_image16(17, height, 2, 8);
        REQUIRE(blur_on_cpu(in16, spec, 0).pixels ==
                direct_integer_blur<gb_arith::Premultiplied16>(in16, spec).pixels);
      }
    }
  }
  // Different radii across and down.
  const BlurSpec anisotropic = test::make_test_spec(3, 0.8, 21, 4.0, 3);
  const Image rgb = test::random_image(40, 30, 3, 6);
  CHECK(blur_on_cpu(rgb, anisotropic, 1).pixels ==
        direct_integer_blur<gb_arith::Straight8>(rgb, anisotropic).pixels);
}
