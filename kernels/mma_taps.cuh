// mma_taps.cuh — the taps as tensor-core operands: the prelude's 16-bit taps split into bytes,
// packed four to a register as the fragments want them (tap windows in global memory), the
// block's table of horizontal B fragments, and the vertical A fragments (weights), in registers or
// in a block table.
#ifndef GB_MMA_TAPS_INCLUDED
#define GB_MMA_TAPS_INCLUDED 1
#ifndef GB_MMA_LAYOUT_INCLUDED
#include "mma_layout.cuh"
#endif

namespace gb {

// Byte `hi` (0 low, 1 high) of a tap: of its two's complement bits, so that a signed tap is
// 256 (its high byte as s8) + (its low byte as u8).
__host__ __device__ constexpr unsigned tap_byte(Tap q, int hi) {
  return (static_cast<unsigned>(q) >> (8 * hi)) & 255u;
}
// The byte of the tap that an input `d` rows below output row 0 gets, or 0.
__host__ __device__ constexpr unsigned tap_byte_y(int d, int hi) {
  return d < 0 || d >= kSizeY ? 0u : tap_byte(tap_y(d), hi);
}
// The same for an input `delta` bytes right of the output byte: taps are kChannels apart.
__host__ __device__ constexpr unsigned tap_byte_x(int delta, int hi) {
  if (delta % kChannels != 0) return 0u;
  const int i = delta / kChannels + kRadiusX;
  return i < 0 || i >= kSizeX ? 0u : tap_byte(tap_x(i), hi);
}

// Each tap must split into two bytes (gb_mma::fits_two_bytes). codegen sends a lone tap of 2^16
// to the tiled kernel, and a matrix whose numbers do not fit to the separable one.
__host__ __device__ constexpr bool taps_split_into_bytes() {
  for (int i = 0; i < kSizeX; ++i) {
    if (!gb_mma::fits_two_bytes(static_cast<long long>(tap_x(i)), kSignedX)) return false;
  }
  for (int i = 0; i < kSizeY; ++i) {
    if (!gb_mma::fits_two_bytes(static_cast<long long>(tap_y(i)), kSignedY)) return false;
  }
  return true;
}
static_assert(taps_split_into_bytes(), "a tap of 2^16 has no two-byte split");

// Exact sums: the intermediate must fit its two bytes too (codegen checks the same rule).
__host__ __device__ constexpr bool exact_mid_fits() {
  long long positive = 0, negative = 0;
  for (int i = 0; i < kSizeY; ++i) {
    const long long q = static_cast<long long>(tap_y(i));
    if (q > 0) positive += q;
    if (q < 0) negative -= q;
  }
  return gb_mma::exact_mid_fits(positive, negative);
}
static_assert(!kExactSums || exact_mid_fits(), "the intermediate has more than 16 bits");

// Operand registers hold 4 consecutive k (element e in byte e), so every fragment register is
// a window of 4 consecutive tap bytes: table[i] packs the taps at offsets first + i .. + 3.
template <int kFirst, int kCount>
struct TapWindows {
  unsigned word[2][kCount];  // [low, high byte][offset - kFirst]
};
constexpr int kFirstY = -15;
constexpr int kCountY = 32 * kChunksY - kFirstY;
constexpr int kFirstX = -31 - kPad;
constexpr int kCountX = kGeometry.tap_columns();

template <int kFirst, int kCount>
__host__ __device__ constexpr TapWindows<kFirst, kCount> make_windows(unsigned (*tap_byte)(int,
                                                                                           int)) {
  TapWindows<kFirst, kCount> t{};
  for (int hi = 0; hi < 2; ++hi)
    for (int i = 0; i < kCount; ++i)
      for (int e = 0; e < 4; ++e) t.word[hi][i] |= tap_byte(kFirst + i + e, hi) << (8 * e);
  return t;
}
// In global memory (each lane reads its own entries; constant memory would serialise them).
__device__ const TapWindows<kFirstY, kCountY> windows_y =
    make_windows<kFirstY, kCountY>(tap_byte_y);
__device__ const TapWindows<kFirstX, kCountX> windows_x =
    make_windows<kFirstX, kCountX>(tap_byte_x);

__device__ __forceinline__ unsigned window_y(int hi, int d) {
  return __ldg(&windows_y.word[hi][d - kFirstY]);
}
__device__ __forceinline__ unsigned window_x(int hi, int delta) {
  return __ldg(&windows_x.word[hi][delta - kFirstX]);
}

// The block's horizontal taps (kTapBytes in shared memory). As ready B fragments: one uint2 per
// (chunk c, N-tile j, byte, lane), b0 for k = 4t + e and b1 for k = 16 + 4t + e (column n = g is
// output 8 (g / 2) + 2j + g % 2). Beyond kFragmentChunks: windows_x itself (8 bytes per window
// column), from which each lane gathers its two words.
// Window column delta(c, j) = 32c - 2j + (the lane's part) - kPad, relative to the output.
struct TapSource {
  const unsigned char* table;
  int lane;        // fragment table: the lane's entry
  int lane_index;  // gathered windows: the lane's word at c = j = 0, as an index into a byte plane
  __device__ __forceinline__ uint2 get(int c, int j, int hi) const {
    if (kFragmentTable) {
      return reinterpret_cast<const uint2*>(table)[((c * 4 + j) * 2 + hi) * 32 + lane];
    }
    const unsigned* words =
        reinterpret_cast<const unsigned*>(table) + hi * kCountX + lane_index + 32 * c - 2 * j;
    return make_uint2(words[0], words[16]);
  }
};

__device__ __forceinline__ TapSource build_tap_source(unsigned char* table) {
  if (kFragmentTable) {
    uint2* fragments = reinterpret_cast<uint2*>(table);
    for (int i = threadIdx.x; i < kTapFragments * 32; i += GB_BLOCK_THREADS) {
      const int fl = i & 31, hw = (i >> 5) & 1, j = (i >> 6) & 3, c = i >> 8;
      const int g = fl >> 2, t4 = 4 * (fl & 3);
      const int delta = 32 * c + t4 - (8 * (g >> 1) + 2 * j + (g & 1)) - kPad;
      fragments[i] = make_uint2(window_x(hw, delta), window_x(hw, delta + 16));
    }
  } else {
    unsigned* words = reinterpret_cast<unsigned*>(table);
    for (int i = threadIdx.x; i < 2 * kCountX; i += GB_BLOCK_THREADS)
      words[i] = windows_x.word[i / kCountX][i % kCountX];
  }
  const int lane = threadIdx.x & 31, g = lane >> 2;
  return {table, lane, 4 * (lane & 3) - (8 * (g >> 1) + (g & 1)) - kPad - kFirstX};
}

// The lane's vertical A fragment of chunk c, byte hi.
__device__ __forceinline__ void weight_fragment(unsigned (&a)[4], int c, int hi, Lane l) {
  const int d = 32 * c + 4 * l.t - l.g;
  const int offsets[4] = {d, d - 8, d + 16, d + 8};
#pragma unroll
  for (int f = 0; f < 4; ++f) a[f] = window_y(hi, offsets[f]);
  if (kRoundInRow &&
      c == kRoundRow / 32) {  // the rounding row's weight: 2^7 + 2^15 (both bytes 2^7)
    constexpr int k = kRoundRow % 32;
    if (l.t == (k % 16) / 4) {
      a[k < 16 ? 0 : 2] |= 128u << (8 * (k % 4));  // rows g and g + 8
      a[k < 16 ? 1 : 3] |= 128u << (8 * (k % 4));
    }
  }
}

// The vertical weights as A fragments: a0 row g, k = 4t + e; a1 row g + 8; a2, a3: k + 16; in
// registers or in the block's table (kWeightsInRegisters).
struct WeightsY {
  unsigned reg[kWeightsInRegisters ? kChunksY : 1][2][4];
  const uint4* table;  // [chunk][byte][lane]
  int lane;
  __device__ __forceinline__ void get(int c, int hi, unsigned (&a)[4]) const {
    if (kWeightsInRegisters) {
#pragma unroll
      for (int f = 0; f < 4; ++f) a[f] = reg[c][hi][f];
    } else {
      const uint4 v = table[(c * 2 + hi) * 32 + lane];
      a[0] = v.x, a[1] = v.y, a[2] = v.z, a[3] = v.w;
    }
  }
};

// Fills the block's table (all threads; a __syncthreads must follow) or the lane's registers.
__device__ __forceinline__ WeightsY build_weights_y(unsigned char* table, Lane l, int lane) {
  WeightsY w;
  w.table = reinterpret_cast<const uint4*>(table);
  w.lane = lane;
  if (kWeightsInRegisters) {
#pragma unroll
    for (int c = 0; c < (kWeightsInRegisters ? kChunksY : 0); ++c) {
      weight_fragment(w.reg[c][0], c, 0, l);
      weight_fragment(w.reg[c][1], c, 1, l);
    }
  } else {
    for (int i = threadIdx.x; i < kChunksY * 2 * 32; i += GB_BLOCK_THREADS) {
      const int fl = i & 31;
      unsigned a[4];
      weight_fragment(a, i >> 6, (i >> 5) & 1, Lane{fl >> 2, fl & 3});
      reinterpret_cast<uint4*>(table)[i] = make_uint4(a[0], a[1], a[2], a[3]);
    }
  }
  return w;
}

}  // namespace gb

#endif  // GB_MMA_TAPS_INCLUDED
