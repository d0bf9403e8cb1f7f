// cpu_filter_test.cpp — the CPU twin's convolution matrix and unsharp mask: exact integer matrices
// against a direct 128-bit reference of the formula clamp(round(sum(w p) / D + O)), every border,
// depth, channel count and alpha mode; a rank-one matrix's two passes equal its dense pass byte
// for byte; fixed point and floating point within their stated error; the unsharp mask within
// 1 LSB of float64 with the same Gaussian; the edge detector on a white square.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "cpu/cpu_blur.hpp"
#include "ops/blur_parameters.hpp"
#include "ops/policy_taps.hpp"
#include "support/reference_blur.hpp"

using namespace gpublur;

namespace {

__extension__ typedef __int128 I128;

constexpr Border kBorders[] = {Border::kClamp, Border::kReflect, Border::kReflect101, Border::kWrap,
                               Border::kConstant};

// round(t / n) with halves away from zero, n > 0: the quotient of |t|, up where the remainder is
// at least half.
I128 round_half_away(I128 t, I128 n) {
  const I128 a = t < 0 ? -t : t;
  I128 q = a / n;
  if (2 * (a % n) >= n) ++q;
  return t < 0 ? -q : q;
}

// A matrix as the test writes it: integer weights (the decimals scaled by hand), the divisor in
// the same scale, and the offset on / od.
struct Case {
  const char* text;
  std::optional<const char*> divisor, offset;
  std::vector<long long> weights;
  long long divisor_scaled;
  long long offset_num, offset_den;
};

const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      {"-1 -1 -1; -1 8 -1; -1 -1 -1", {}, {}, {-1, -1, -1, -1, 8, -1, -1, -1, -1}, 1, 0, 1},
      {"1 2 1; 2 4 2; 1 2 1", {}, {}, {1, 2, 1, 2, 4, 2, 1, 2, 1}, 16, 0, 1},
      {"-1 0 1; -2 0 2; -1 0 1", {}, "128", {-1, 0, 1, -2, 0, 2, -1, 0, 1}, 1, 128, 1},
      {"0.1 0.2 0.1; 0.2 0.3 0.2; 0.1 0.2 0.1", {}, {}, {1, 2, 1, 2, 3, 2, 1, 2, 1}, 15, 0, 1},
      {"1 0 -1 0 1; 0 2 0 2 0; -1 0 4.5 0 -1; 0 2 0 2 0; 1 0 -1 0 1",
       "2.5",
       "0.5",
       {10, 0, -10, 0, 10, 0, 20, 0, 20, 0, -10, 0, 45, 0, -10, 0, 20, 0, 20, 0, 10, 0, -10, 0, 10},
       25,
       1,
       2},
      {"1 -4 6 -4 1", {}, "100", {1, -4, 6, -4, 1}, 1, 100, 1},
      {"1; 4; 6; 4; 1", {}, {}, {1, 4, 6, 4, 1}, 16, 0, 1},
      {"3 -1 0 2 5 -2 1; 0 1 -3 4 0 2 -1; 2 2 -1 0 1 -4 3",
       "-7",
       "-3.25",
       {3, -1, 0, 2, 5, -2, 1, 0, 1, -3, 4, 0, 2, -1, 2, 2, -1, 0, 1, -4, 3},
       -7,
       -13,
       4},
  };
  return all;
}

BlurParameters matrix_parameters(const Case& c, Border border, AlphaMode alpha) {
  BlurParameters p;
  p.operation = Operation::kMatrix;
  p.matrix = parse_matrix_text(c.text);
  if (c.divisor) p.matrix.divisor = *parse_decimal(*c.divisor);
  if (c.offset) p.matrix.offset = *parse_decimal(*c.offset);
  p.border = border;
  p.border_value = {200, 10, 128, 77};
  p.alpha = alpha;
  return p;
}

template <typename Sample>
std::array<long double, 4> constant_of(const FilterSpec& spec) {
  const auto pixel = border_pixel<Sample>(spec);
  std::array<long double, 4> out{};
  std::copy(pixel.begin(), pixel.end(), out.begin());
  return out;
}

// The formula, from the test's own integers and an independent correlation.
template <typename Sample>
Raster<Sample> exact_matrix(const Raster<Sample>& in, const Case& c, const FilterSpec& spec) {
  const std::vector<long double> w(c.weights.begin(), c.weights.end());
  const std::vector<long double> sums = test::reference_correlate(
      in, w, spec.matrix.width, spec.matrix.height, spec.border, constant_of<Sample>(spec));
  const long long high = sizeof(Sample) == 1 ? 255 : 65535;
  I128 den = I128(c.divisor_scaled) * c.offset_den;
  Raster<Sample> out = in;
  const auto channels = static_cast<std::size_t>(in.channels);
  for (std::size_t i = 0; i < sums.size(); ++i) {
    if (spec.keep_alpha && i % channels == channels - 1) continue;  // alpha kept as it is
    I128 num = static_cast<I128>(sums[i]) * c.offset_den + I128(c.offset_num) * c.divisor_scaled;
    if (den < 0) num = -num;
    const I128 v = round_half_away(num, den < 0 ? -den : den);
    out.pixels[i] = static_cast<Sample>(v < 0 ? 0 : v > high ? high : v);
  }
  return out;
}

// The spec with its rank-one factors dropped: the same matrix through the dense 2-D pass.
FilterSpec dense_of(FilterSpec spec) {
  spec.matrix.q8.column.clear();
  spec.matrix.q8.row.clear();
  spec.matrix.q16.column.clear();
  spec.matrix.q16.row.clear();
  return spec;
}

}  // namespace

TEST_CASE("integer and decimal matrices are exact, every border, depth, channel count and alpha",
          "[cpu_filter]") {
  for (const Case& c : cases()) {
    for (const Border border : kBorders) {
      for (int channels = 1; channels <= 4; ++channels) {
        for (const AlphaMode alpha : {AlphaMode::kPremultiplied, AlphaMode::kStraight}) {
          CAPTURE(c.text, border_name(border), channels, kAlphaNames.name(alpha));
          const FilterSpec spec = make_blur_spec(matrix_parameters(c, border, alpha), channels);
          CHECK(spec.keep_alpha ==
                (alpha == AlphaMode::kPremultiplied && (channels == 2 || channels == 4)));
          CHECK(spec.matrix.q8.fraction_bits == -1);
          const Image in = test::random_image(29, 17, channels, 11);
          REQUIRE(blur_on_cpu(in, spec, 1).pixels == exact_matrix(in, c, spec).pixels);
          const Image16 in16 = test::random_image16(13, 9, channels, 12);
          REQUIRE(blur_on_cpu(in16, spec, 0).pixels == exact_matrix(in16, c, spec).pixels);
          const Image tiny = test::random_image(2, 1, channels, 13);  // smaller than the matrix
          REQUIRE(blur_on_cpu(tiny, spec).pixels == exact_matrix(tiny, c, spec).pixels);
        }
      }
    }
  }
}

TEST_CASE("a rank-one matrix's two passes give its dense pass's bytes", "[cpu_filter]") {
  for (const char* text :
       {"1 2 1; 2 4 2; 1 2 1", "-1 0 1; -2 0 2; -1 0 1", "1 -4 6 -4 1", "1; 4; 6; 4; 1",
        "6 -9 3; -4 6 -2; 2 -3 1", "1 1 1 1 1 1 1 1 1; 1 1 1 1 1 1 1 1 1; 1 1 1 1 1 1 1 1 1"}) {
    for (const Border border : kBorders) {
      CAPTURE(text, border_name(border));
      BlurParameters p;
      p.operation = Operation::kMatrix;
      p.matrix = parse_matrix_text(text);
      p.matrix.offset = Decimal{3, 1};
      p.border = border;
      p.border_value = {1, 2, 3, 4};
      const FilterSpec spec = make_blur_spec(p, 3);
      REQUIRE(spec.matrix.q8.separable());
      REQUIRE(spec.matrix.q16.separable());
      const Image in = test::random_image(41, 27, 3, 21);
      REQUIRE(blur_on_cpu(in, spec).pixels == blur_on_cpu(in, dense_of(spec)).pixels);
      const Image16 in16 = test::random_image16(23, 31, 3, 22);
      REQUIRE(blur_on_cpu(in16, spec).pixels == blur_on_cpu(in16, dense_of(spec)).pixels);
    }
  }
}

TEST_CASE("fixed-point and floating-point matrices are within their stated error", "[cpu_filter]") {
  const double ninth = 1.0 / 9;
  BlurParameters p;
  p.operation = Operation::kMatrix;
  p.matrix = matrix_of_rows({{ninth, ninth, ninth}, {ninth, -ninth, ninth}, {ninth, ninth, 3.7}});
  p.matrix.divisor = Decimal{1, 0};
  p.matrix.offset = decimal_of(0.3);
  for (const Border border : kBorders) {
    CAPTURE(border_name(border));
    p.border = border;
    p.border_value = {90, 180, 30, 255};
    const FilterSpec spec = make_blur_spec(p, 3);
    REQUIRE(spec.matrix.q8.fraction_bits > 0);
    REQUIRE(spec.matrix.q16.fraction_bits > 0);
    std::vector<long double> real;
    for (const Decimal& v : spec.matrix.values) real.push_back(v.value());
    const auto check = [&](const auto& in, long double high) {
      using Sample = typename std::decay_t<decltype(in.pixels)>::value_type;
      const auto out = blur_on_cpu(in, spec);
      const std::vector<long double> sums =
          test::reference_correlate(in, real, 3, 3, border, constant_of<Sample>(spec));
      long double worst = 0;
      for (std::size_t i = 0; i < sums.size(); ++i) {
        const long double exact = std::clamp(sums[i] + 0.3L, 0.0L, high);
        worst = std::max(worst, std::fabs(out.pixels[i] - exact));
      }
      CHECK(worst <= 1.0L);
      return worst;
    };
    check(test::random_image(37, 21, 3, 5), 255);
    check(test::random_image16(19, 23, 3, 6), 65535);
    ImageF hdr = make_raster<float>(17, 13, 3);
    for (std::size_t i = 0; i < hdr.pixels.size(); ++i)
      hdr.pixels[i] = static_cast<float>(i * 7919 % 1000) / 100.0f;
    const ImageF out = blur_on_cpu(hdr, spec);
    const std::vector<long double> sums =
        test::reference_correlate(hdr, real, 3, 3, border, constant_of<float>(spec));
    for (std::size_t i = 0; i < sums.size(); ++i) {
      const long double exact = std::max(0.0L, sums[i] + 0.3L);
      CHECK(std::fabs(out.pixels[i] - exact) <= 1e-6L * std::max(1.0L, exact));
    }
  }
}

TEST_CASE("HDR images take the real matrix, dense or in two passes", "[cpu_filter]") {
  for (const char* text : {"-1 -1 -1; -1 8 -1; -1 -1 -1", "1 2 1; 2 4 2; 1 2 1"}) {
    BlurParameters p;
    p.operation = Operation::kMatrix;
    p.matrix = parse_matrix_text(text);
    p.matrix.offset = Decimal{5, -1};
    p.border = Border::kReflect101;
    const FilterSpec spec = make_blur_spec(p, 4);
    ImageF in = make_raster<float>(23, 19, 4);
    for (std::size_t i = 0; i < in.pixels.size(); ++i)
      in.pixels[i] = static_cast<float>(i * 104729 % 977) / 97.0f;
    const ImageF out = blur_on_cpu(in, spec);
    std::vector<long double> w;
    for (const Decimal& v : spec.matrix.values)
      w.push_back(v.value() / spec.matrix.divisor.value());
    const std::vector<long double> sums =
        test::reference_correlate(in, w, 3, 3, p.border, constant_of<float>(spec));
    for (std::size_t i = 0; i < sums.size(); ++i) {
      CAPTURE(text, i);
      if (i % 4 == 3) {
        CHECK(out.pixels[i] == in.pixels[i]);  // alpha kept
        continue;
      }
      const long double exact = std::max(0.0L, sums[i] + 0.5L);
      CHECK(std::fabs(out.pixels[i] - exact) <= 1e-6L * std::max(1.0L, exact));
    }
  }
}

TEST_CASE("the edge detector on a white square lights the square's inner edge", "[cpu_filter]") {
  Image in = make_image(20, 16, 1);
  const auto inside = [](int x, int y) { return x >= 6 && x < 14 && y >= 4 && y < 11; };
  for (int y = 0; y < 16; ++y)
    for (int x = 0; x < 20; ++x)
      in.pixels[static_cast<std::size_t>(y * 20 + x)] = inside(x, y) ? 255 : 0;
  BlurParameters p;
  p.operation = Operation::kMatrix;
  p.matrix = parse_matrix_text("-1 -1 -1; -1 8 -1; -1 -1 -1");
  const Image out = blur_on_cpu(in, make_blur_spec(p, 1));
  for (int y = 0; y < 16; ++y) {
    for (int x = 0; x < 20; ++x) {
      const bool edge = inside(x, y) && !(inside(x - 1, y - 1) && inside(x + 1, y + 1) &&
                                          inside(x - 1, y + 1) && inside(x + 1, y - 1));
      CAPTURE(x, y);
      CHECK(out.pixels[static_cast<std::size_t>(y * 20 + x)] == (edge ? 255 : 0));
    }
  }
}

namespace {

BlurParameters unsharp_parameters(int size, double sigma, double amount, double threshold,
                                  Border border) {
  BlurParameters p = test::make_test_parameters(size, sigma);
  p.operation = Operation::kUnsharp;
  p.unsharp = {amount, threshold};
  p.border = border;
  p.border_value = {30, 60, 90, 120};
  return p;
}

// in + amount (in - blur) where |in - blur| > threshold, else in, clamped; the blur float64's.
// Returns the largest difference from `out` where the decision is clear of the threshold.
template <typename Sample>
double unsharp_difference(const Raster<Sample>& in, const Raster<Sample>& out,
                          const BlurParameters& p, double high) {
  const std::vector<double> blur =
      test::reference_blur(in, p.size.x.size, p.size.x.sigma, p.border, p.border_value);
  double worst = 0;
  for (std::size_t i = 0; i < blur.size(); ++i) {
    const double d = in.pixels[i] - blur[i];
    if (std::fabs(std::fabs(d) - p.unsharp.threshold) < 0.01 && p.unsharp.threshold > 0) continue;
    const double exact = std::fabs(d) > p.unsharp.threshold
                             ? std::clamp(in.pixels[i] + p.unsharp.amount * d, 0.0, high)
                             : in.pixels[i];
    worst = std::max(worst, std::fabs(out.pixels[i] - exact));
  }
  return worst;
}

}  // namespace

TEST_CASE("the unsharp mask is within 1 LSB of float64 with the same Gaussian", "[cpu_filter]") {
  const auto [size, sigma, amount, threshold] =
      GENERATE(table<int, double, double, double>({{3, 0.8, 10.0, 0.0},
                                                   {7, 1.5, 1.5, 0.0},
                                                   {7, 1.5, 3.0, 4.0},
                                                   {13, 2.0, 1.0, 0.0},
                                                   {13, 2.0, 2.0, 12.5},
                                                   {31, 5.0, 1.0, 0.0},
                                                   {1, 0.5, 5.0, 0.0}}));
  const Border border = GENERATE(Border::kClamp, Border::kReflect, Border::kReflect101,
                                 Border::kWrap, Border::kConstant);
  const int channels = GENERATE(1, 3, 4);
  CAPTURE(size, sigma, amount, threshold, border_name(border), channels);
  BlurParameters p = unsharp_parameters(size, sigma, amount, threshold, border);
  p.alpha = AlphaMode::kStraight;
  const FilterSpec spec = make_blur_spec(p, channels);
  const Image in = test::random_image(31, 22, channels, 3);
  CHECK(unsharp_difference(in, blur_on_cpu(in, spec), p, 255) <= 1.0);
  // 16-bit: THRESHOLD in 16-bit levels.
  const Image16 in16 = test::random_image16(17, 19, channels, 4);
  CHECK(unsharp_difference(in16, blur_on_cpu(in16, spec), p, 65535) <= 1.0);
}

TEST_CASE("the 8-bit unsharp finish is its rule, rounded once", "[cpu_filter]") {
  // Unsharp8 (arithmetic.cuh) computes its output mirrored, from one high multiply-add and one
  // multiply-add; the rule as stated, in plain 64-bit arithmetic, must give the same sample for
  // every amount (0 .. 10 x 2^16, a third of them whole, as AMOUNT 1 is), sum b and input byte,
  // at their ends and at random, and be within 1/2 + 2^-16 of in + (k / 2^16)(in - b / 2^24) in
  // float64.
  std::uint64_t state = 12345;
  const auto next = [&state] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<std::uint32_t>(state >> 32);
  };
  const std::uint32_t kMostB = 255u << 24;
  const auto floor_div = [](long long a, long long n) {
    return a >= 0 ? a / n : -((-a + n - 1) / n);
  };
  for (int i = 0; i < 400000; ++i) {
    const long long k = i % 7 == 0   ? (i % 14 == 0 ? 0 : 10ll << 16)
                        : i % 3 == 0 ? static_cast<long long>(next() % 11) << 16  // whole
                                     : static_cast<long long>(next() % ((10u << 16) + 1));
    const std::uint32_t b = i % 5 == 0 ? (i % 10 == 0 ? 0 : kMostB) : next() % (kMostB + 1);
    const std::uint8_t in = static_cast<std::uint8_t>(i % 11 == 0   ? 255
                                                      : i % 13 == 0 ? 0
                                                                    : next() & 255);
    const long long h = floor_div((static_cast<long long>(b) + (1ll << 23)) * k, 1ll << 24);
    const long long x = in * ((1ll << 16) + k) - h + k / 2;
    const long long v = floor_div(x + (1ll << 15), 1ll << 16);
    const int expected = static_cast<int>(std::clamp(v, 0ll, 255ll));
    CAPTURE(k, b, in);
    const int got = gb_arith::Unsharp8::finish_sample(
        b, in, gb_arith::UnsharpScale{static_cast<std::uint64_t>(k), 0});
    REQUIRE(got == expected);
    const double formula = in + std::ldexp(static_cast<double>(k), -16) *
                                    (in - std::ldexp(static_cast<double>(b), -24));
    REQUIRE(std::fabs(got - std::clamp(formula, 0.0, 255.0)) <= 0.5 + std::ldexp(1.0, -16) + 1e-9);
  }
}

TEST_CASE("the unsharp mask leaves alone what it need not change", "[cpu_filter]") {
  const Image in = test::random_image(33, 21, 4, 9);
  SECTION("AMOUNT 0 and a THRESHOLD above every difference") {
    for (const auto& [amount, threshold] : {std::pair{0.0, 0.0}, std::pair{3.0, 255.0}}) {
      BlurParameters p = unsharp_parameters(9, 2.0, amount, threshold, Border::kReflect101);
      p.alpha = AlphaMode::kStraight;
      CHECK(blur_on_cpu(in, make_blur_spec(p, 4)).pixels == in.pixels);
    }
  }
  SECTION("a constant image") {
    Image flat = make_image(19, 7, 3);
    std::fill(flat.pixels.begin(), flat.pixels.end(), std::uint8_t{77});
    const BlurParameters p = unsharp_parameters(7, 1.5, 2.0, 0.0, Border::kClamp);
    CHECK(blur_on_cpu(flat, make_blur_spec(p, 3)).pixels == flat.pixels);
  }
  SECTION("alpha, kept by default; sharpened with --alpha straight") {
    const BlurParameters p = unsharp_parameters(7, 1.5, 2.0, 0.0, Border::kClamp);
    const Image out = blur_on_cpu(in, make_blur_spec(p, 4));
    std::size_t changed_colours = 0;
    for (std::size_t i = 0; i < in.pixels.size(); ++i) {
      if (i % 4 == 3) {
        REQUIRE(out.pixels[i] == in.pixels[i]);
      } else {
        changed_colours += out.pixels[i] != in.pixels[i];
      }
    }
    CHECK(changed_colours > in.pixels.size() / 2);
    BlurParameters straight = p;
    straight.alpha = AlphaMode::kStraight;
    const Image all = blur_on_cpu(in, make_blur_spec(straight, 4));
    CHECK(unsharp_difference(in, all, straight, 255) <= 1.0);
  }
}

TEST_CASE("the HDR unsharp mask is float64's, rounded once", "[cpu_filter]") {
  ImageF in = make_raster<float>(29, 19, 3);
  for (std::size_t i = 0; i < in.pixels.size(); ++i)
    in.pixels[i] = static_cast<float>(i * 7919 % 1000) / 10.0f;
  const BlurParameters p = unsharp_parameters(7, 1.5, 1.5, 2.0, Border::kReflect101);
  const ImageF out = blur_on_cpu(in, make_blur_spec(p, 3));
  // The reference reads constant borders on the 0..255 scale; this one has none.
  const std::vector<double> blur = test::reference_blur(in, 7, 1.5, p.border, {});
  for (std::size_t i = 0; i < blur.size(); ++i) {
    const double d = in.pixels[i] - blur[i];
    if (std::fabs(std::fabs(d) - 2.0) < 1e-6) continue;
    const double exact = std::fabs(d) > 2.0 ? std::max(0.0, in.pixels[i] + 1.5 * d) : in.pixels[i];
    CHECK(std::fabs(out.pixels[i] - exact) <= 1e-5 * std::max(1.0, std::fabs(exact)));
  }
}

TEST_CASE("matrices and the unsharp mask do not depend on the thread count", "[cpu_filter]") {
  const Image in = test::random_image(301, 97, 3, 7);
  BlurParameters dense;
  dense.operation = Operation::kMatrix;
  dense.matrix =
      parse_matrix_text("0 -1 0 -1 0; -1 2 -3 2 -1; 0 -3 20 -3 0; -1 2 -3 2 -1; 0 -1 0 -1 0");
  BlurParameters separable = dense;
  separable.matrix = parse_matrix_text("1 4 6 4 1");
  const BlurParameters sharp = unsharp_parameters(11, 2.0, 1.5, 1.0, Border::kWrap);
  for (const BlurParameters& p : {dense, separable, sharp}) {
    const FilterSpec spec = make_blur_spec(p, 3);
    const Image one = blur_on_cpu(in, spec, 1);
    CHECK(blur_on_cpu(in, spec, 3).pixels == one.pixels);
    CHECK(blur_on_cpu(in, spec, 16).pixels == one.pixels);
  }
}
