// byte_planes_test.cpp — kernels/byte_planes.cuh on the host: rows of 1-4 interleaved channels
// split into one word per channel and merged back, byte for byte, as matrix_dp4a.cu relies on.
#include <catch2/catch.hpp>

#include <cstddef>

#include "byte_planes.cuh"

namespace {

// Four pixels of kC channels, interleaved: byte p * kC + k is 16 k + p (distinct bytes).
template <int kC>
void check_round_trip() {
  constexpr unsigned kWords = kC;
  unsigned row[kWords] = {};
  for (unsigned p = 0; p < 4; ++p) {
    for (unsigned k = 0; k < kWords; ++k) {
      const unsigned byte = p * kWords + k;
      row[byte / 4] |= (16 * k + p) << (8 * (byte % 4));
    }
  }
  unsigned plane[kWords] = {};
  gb_bytes::split<kC>(row, plane);
  for (unsigned k = 0; k < kWords; ++k) {
    CAPTURE(kC, k);
    // Plane k, byte p: channel k of pixel p.
    CHECK(plane[k] == (16u * k | (16u * k + 1) << 8 | (16u * k + 2) << 16 | (16u * k + 3) << 24));
  }
  unsigned back[kWords] = {};
  gb_bytes::merge<kC>(plane, back);
  for (unsigned w = 0; w < kWords; ++w) {
    CAPTURE(kC, w);
    CHECK(back[w] == row[w]);
  }
}

}  // namespace

TEST_CASE("four pixels' channels split into planes and merge back", "[codegen]") {
  check_round_trip<1>();
  check_round_trip<2>();
  check_round_trip<3>();
  check_round_trip<4>();
}

TEST_CASE("perm picks bytes as __byte_perm does", "[codegen]") {
  const unsigned x = 0x03020100u, y = 0x07060504u;
  CHECK(gb_bytes::perm(x, y, 0x3210) == x);
  CHECK(gb_bytes::perm(x, y, 0x7654) == y);
  CHECK(gb_bytes::perm(x, y, 0x5140) == 0x05010400u);
  CHECK(gb_bytes::perm(0xffeeddccu, 0x44332211u, 0x0741) == 0xcc4411ddu);
}
