// gaussian_test.cpp — the Gaussian's front end: one axis' taps at every precision, each summing
// exactly to its policy's total, and the spec built from the command line's parameters.
#include <catch2/catch.hpp>

#include <numeric>

#include "ops/blur_parameters.hpp"
#include "ops/gaussian.hpp"
#include "ops/policy_taps.hpp"
#include "ops/weights.hpp"

using namespace gpublur;

TEST_CASE("a Gaussian axis holds its taps at every precision", "[gaussian]") {
  const auto [size, sigma] =
      GENERATE(table<int, double>({{1, 0.5}, {3, 0.8}, {7, 1.5}, {31, 5.0}, {255, 42.0}}));
  CAPTURE(size, sigma);
  const AxisTaps axis = gaussian_axis(size, sigma);
  CHECK(axis.size == size);
  CHECK(axis.sigma == sigma);
  CHECK(axis.radius() == size / 2);
  REQUIRE(axis.q16.size() == static_cast<std::size_t>(size));
  REQUIRE(axis.q24.size() == static_cast<std::size_t>(size));
  REQUIRE(axis.real.size() == static_cast<std::size_t>(size));
  CHECK(std::accumulate(axis.q16.begin(), axis.q16.end(), 0ull) == 1ull << kWeightBits);
  CHECK(std::accumulate(axis.q24.begin(), axis.q24.end(), 0ull) == 1ull << kWeightBits16);
  CHECK(std::accumulate(axis.real.begin(), axis.real.end(), 0.0) == Approx(1.0));
  const Weights w16 = make_weights(size, sigma, kWeightBits);
  const Weights w24 = make_weights(size, sigma, kWeightBits16);
  CHECK(std::equal(axis.q16.begin(), axis.q16.end(), w16.taps.begin(), w16.taps.end()));
  CHECK(std::equal(axis.q24.begin(), axis.q24.end(), w24.taps.begin(), w24.taps.end()));
  CHECK(axis.real == gaussian_taps(size, sigma));
  // The policies look their taps up; none is made again.
  CHECK(&policy_taps<gb_arith::Straight8>(axis) == &axis.q16);
  CHECK(&policy_taps<gb_arith::Premultiplied16>(axis) == &axis.q24);
  CHECK(&policy_taps<gb_arith::Float>(axis) == &axis.real);
}

TEST_CASE("the blur's spec takes each axis from the Gaussian's front end", "[gaussian]") {
  BlurParameters p;
  p.size.x = {7, 1.5, "given"};
  p.size.y = {3, 0.8, "given"};
  p.border = Border::kWrap;
  p.border_value = {1, 2, 3, 4};
  const FilterSpec spec = make_blur_spec(p, 4);
  CHECK(spec.x.q16 == gaussian_axis(7, 1.5).q16);
  CHECK(spec.y.q24 == gaussian_axis(3, 0.8).q24);
  CHECK(spec.y.sigma == 0.8);
  CHECK(spec.channels == 4);
  CHECK(spec.border == Border::kWrap);
  CHECK(spec.border_value == std::array<std::uint8_t, 4>{1, 2, 3, 4});
  CHECK_FALSE(spec.premultiplied);
}
