// mma_lanes.cuh — where a warp's lanes hold an m16n8 product's results, and how four N-tiles'
// output bytes become each lane's eight consecutive bytes of a row: what the tensor-core blur
// (blur_mma.cu) and the dense matrix on the tensor cores (matrix_mma.cu) both store through.
// Plain device code: no kernel constants.
#ifndef GB_MMA_LANES_INCLUDED
#define GB_MMA_LANES_INCLUDED 1

namespace gb {

struct Lane {
  int g;  // lane / 4: the fragment row (A, C) or column (B)
  int t;  // lane % 4: which 4 k's (A, B) or 2 columns (C)
};

// Lane t of each quad holds w[j] for j = 0..3; afterwards it holds lane j's w[t]. Step b swaps
// bit b of (lane, index) wherever the two differ: the lane sends its two such words and takes
// its partner's in their place.
__device__ __forceinline__ void quad_transpose(unsigned (&w)[4], int t) {
  const bool t0 = (t & 1) != 0, t1 = (t & 2) != 0;
#pragma unroll
  for (int k = 0; k < 2; ++k) {  // bit 0: indices 2k + 1 - t0
    const unsigned got = __shfl_xor_sync(0xffffffffu, t0 ? w[2 * k] : w[2 * k + 1], 1);
    if (t0) {
      w[2 * k] = got;
    } else {
      w[2 * k + 1] = got;
    }
  }
#pragma unroll
  for (int k = 0; k < 2; ++k) {  // bit 1: indices k + 2 (1 - t1)
    const unsigned got = __shfl_xor_sync(0xffffffffu, t1 ? w[k] : w[k + 2], 2);
    if (t1) {
      w[k] = got;
    } else {
      w[k + 2] = got;
    }
  }
}

// The lane's 8 consecutive output bytes 8t .. 8t + 7 of rows g (result[0]) and g + 8
// (result[1]) of a unit of four N-tiles, from w[j]: N-tile j's bytes of row g (its outputs 8j +
// 2t, + 1), then of row g + 8 (an m16n8 product's c0 .. c3, finished to bytes).
__device__ __forceinline__ void unit_rows(unsigned (&w)[4], int t, unsigned (&result)[2][2]) {
  quad_transpose(w, t);  // w[t'] now: N-tile t, outputs 8t + 2t', + 1
  result[0][0] = __byte_perm(w[0], w[1], 0x5410);
  result[0][1] = __byte_perm(w[2], w[3], 0x5410);
  result[1][0] = __byte_perm(w[0], w[1], 0x7632);
  result[1][1] = __byte_perm(w[2], w[3], 0x7632);
}

}  // namespace gb

#endif  // GB_MMA_LANES_INCLUDED
