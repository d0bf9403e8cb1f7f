// byte_planes.cuh — four pixels of kC interleaved 8-bit channels (kC words, as a row holds them)
// as one word per channel (byte i: pixel i's sample), and back: how matrix_dp4a.cu turns rows
// into planes, whose four neighbouring samples of a channel meet four weights in one dp4a, and
// its planar results back into rows. Plain C++ compiled by the host compiler too, so a unit test
// holds the byte orders (tests/codegen/byte_planes_test.cpp); a kernel's __byte_perm is the
// same function as perm's loop.
#ifndef GB_BYTE_PLANES_INCLUDED
#define GB_BYTE_PLANES_INCLUDED 1
#ifndef GB_HOST_DEVICE_INCLUDED
#include "host_device.cuh"
#endif

namespace gb_bytes {

// Byte n of the result is byte ((s >> 4n) & 7) of the eight bytes y:x (x's are 0-3).
GB_HD unsigned perm(unsigned x, unsigned y, unsigned s) {
#if defined(__CUDA_ARCH__)
  return __byte_perm(x, y, s);
#else
  const unsigned long long both = static_cast<unsigned long long>(y) << 32 | x;
  unsigned r = 0;
  for (int n = 0; n < 4; ++n) {
    const unsigned from = (s >> (4 * n)) & 7u;
    r |= static_cast<unsigned>((both >> (8 * from)) & 0xffu) << (8 * n);
  }
  return r;
#endif
}

// Rows to planes: `row` holds pixels 0-3 interleaved (kC words); plane[k] gets channel k of each.
template <int kC>
GB_HD void split(const unsigned* row, unsigned* plane) {
  if constexpr (kC == 1) {
    plane[0] = row[0];
  } else if constexpr (kC == 2) {  // a0 b0 a1 b1 | a2 b2 a3 b3
    plane[0] = perm(row[0], row[1], 0x6420);
    plane[1] = perm(row[0], row[1], 0x7531);
  } else if constexpr (kC == 3) {  // r0 g0 b0 r1 | g1 b1 r2 g2 | b2 r3 g3 b3
    plane[0] = perm(perm(row[0], row[1], 0x0630), row[2], 0x5210);
    plane[1] = perm(perm(row[0], row[1], 0x0741), row[2], 0x6210);
    plane[2] = perm(perm(row[0], row[1], 0x0052), row[2], 0x7410);
  } else {  // r0 g0 b0 a0 | r1 g1 b1 a1 | ...: a 4 x 4 transpose
    const unsigned rg01 = perm(row[0], row[1], 0x5140), rg23 = perm(row[2], row[3], 0x5140);
    const unsigned ba01 = perm(row[0], row[1], 0x7362), ba23 = perm(row[2], row[3], 0x7362);
    plane[0] = perm(rg01, rg23, 0x5410);
    plane[1] = perm(rg01, rg23, 0x7632);
    plane[2] = perm(ba01, ba23, 0x5410);
    plane[3] = perm(ba01, ba23, 0x7632);
  }
}

// Planes to rows: split's inverse.
template <int kC>
GB_HD void merge(const unsigned* plane, unsigned* row) {
  if constexpr (kC == 1) {
    row[0] = plane[0];
  } else if constexpr (kC == 2) {
    row[0] = perm(plane[0], plane[1], 0x5140);
    row[1] = perm(plane[0], plane[1], 0x7362);
  } else if constexpr (kC == 3) {
    const unsigned r = plane[0], g = plane[1], b = plane[2];
    row[0] = perm(perm(r, g, 0x0140), b, 0x2410);  // r0 g0 b0 r1
    row[1] = perm(perm(g, b, 0x0251), r, 0x2610);  // g1 b1 r2 g2
    row[2] = perm(perm(b, g, 0x0372), r, 0x2170);  // b2 r3 g3 b3
  } else {
    const unsigned rg01 = perm(plane[0], plane[1], 0x5140), rg23 = perm(plane[0], plane[1], 0x7362);
    const unsigned ba01 = perm(plane[2], plane[3], 0x5140), ba23 = perm(plane[2], plane[3], 0x7362);
    row[0] = perm(rg01, ba01, 0x5410);
    row[1] = perm(rg01, ba01, 0x7632);
    row[2] = perm(rg23, ba23, 0x5410);
    row[3] = perm(rg23, ba23, 0x7632);
  }
}

}  // namespace gb_bytes

#endif  // GB_BYTE_PLANES_INCLUDED
