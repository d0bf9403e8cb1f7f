// weights_test.cpp — integer taps: exact sum, symmetry, nearest rounding, pinned values.
#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>

#include "ops/weights.hpp"

using namespace gpublur;

// Every off-centre tap is the floor or ceiling of its ideal value, the centre one of the two
// even numbers around its ideal;
// the L1 distance is what bounds the blur's error (weights.hpp).
TEST_CASE("taps sum to exactly 2^16, are symmetric and close to the ideal", "[weights]") {
  const auto [size, sigma] = GENERATE(table<int, double>({{1, 0.5},
                                                          {3, 0.8},
                                                          {5, 1.0},
                                                          {7, 1.5},
                                                          {7, 0.1},
                                                          {9, 100.0},
                                                          {15, 2.5},
                                                          {31, 5.0},
                                                          {101, 16.0},
                                                          {255, 42.0},
                                                          {4095, 600.0}}));
  CAPTURE(size, sigma);
  const Weights w = make_weights(size, sigma);
  REQUIRE(w.taps.size() == static_cast<std::size_t>(size));
  REQUIRE(std::accumulate(w.taps.begin(), w.taps.end(), std::uint64_t{0}) == (1u << kWeightBits));
  const int r = size / 2;
  double norm = 0, l1 = 0;
  for (int k = -r; k <= r; ++k) norm += std::exp(-(k * k) / (2 * sigma * sigma));
  for (int k = -r; k <= r; ++k) {
    const auto i = static_cast<std::size_t>(k + r);
    REQUIRE(w.taps[i] == w.taps[static_cast<std::size_t>(r - k)]);
    const double ideal = std::exp(-(k * k) / (2 * sigma * sigma)) / norm * 65536.0;
    REQUIRE(std::fabs(w.taps[i] - ideal) < (k == 0 ? 2.0 : 1.0));
    l1 += std::fabs(w.taps[i] - ideal);
    if (k < 0) REQUIRE(w.taps[i] <= w.taps[i + 1]);  // rises toward the centre
  }
  CHECK(l1 <= 0.5 * size + 1.0);  // rounding alone gives up to size / 2
}

TEST_CASE("taps are pinned for common kernels", "[weights]") {
  CHECK(make_weights(1, 1.0).taps == std::vector<std::uint32_t>{65536});
  CHECK(make_weights(3, 0.8).taps == std::vector<std::uint32_t>{15663, 34210, 15663});
  CHECK(make_weights(7, 1.5).taps ==
        std::vector<std::uint32_t>{2401, 7293, 14204, 17740, 14204, 7293, 2401});
}

TEST_CASE("same inputs give the same taps", "[weights]") {
  CHECK(make_weights(31, 5.0).taps == make_weights(31, 5.0).taps);
}

TEST_CASE("size and sigma derivation rules", "[weights]") {
  CHECK(size_for_sigma(1.5) == 11);
  CHECK(size_for_sigma(1.0) == 7);
  CHECK(size_for_sigma(0.1) == 3);
  CHECK(sigma_for_size(7) == Approx(1.4));
  CHECK(sigma_for_size(3) == Approx(0.8));
  CHECK(sigma_for_size(1) == Approx(0.5));
}

TEST_CASE("invalid inputs are internal errors", "[weights]") {
  CHECK_THROWS(make_weights(4, 1.0));
  CHECK_THROWS(make_weights(0, 1.0));
  CHECK_THROWS(make_weights(7, 0.0));
  CHECK_THROWS(make_weights(7, std::nan("")));
  CHECK_THROWS(make_weights(kMaxKernelSize + 2, 1.0));
}
