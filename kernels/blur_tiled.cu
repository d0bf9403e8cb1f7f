// blur_tiled.cu — the fast fused separable blur for vertical radius up to 16 and radius x
// channels up to 64. One block of 256 threads makes a kTileH x kTileW-byte tile of output:
//
//  1. vertical pass: each thread takes 4 adjacent byte columns (one 32-bit word) and walks a
//     strip of kStripH output rows, reading each of its kStripH + 2r input rows once (coalesced
//     words, straight from global memory) and adding it into every output row it touches. The
//     sums stay below 2^24, so FP32 adds them exactly (FP32 issues at twice the rate of integer
//     multiply-adds). Each rounded intermediate goes to shared memory as a whole 32-bit word
//     (see vertical_strip), four at a time, for the tile plus its horizontal halo.
//  2. horizontal pass: each thread makes kSeg output bytes of one row from kSeg + 2rC
//     intermediates read with 16-byte shared loads; the 8 threads of a row's segments hit
//     distinct banks. Narrow kernels fold the symmetric taps (q * (m[-i] + m[+i]): half the
//     multiplies) with the values held in registers; wide ones add each value into every output
//     it touches.
//
// Border handling costs nothing in interior blocks: only strips that touch the image edge take
// the per-byte path that applies the border.
#ifndef GB_COMMON_INCLUDED
#include "common.cuh"
#endif

#ifndef GB_TILE_W
#define GB_TILE_W 480
#define GB_TILE_H 32
#define GB_STRIP_H 16
#define GB_HALO 16
#define GB_SEG 60
#define GB_FOLD 1
#define GB_BLOCK_THREADS 256
#endif

namespace gb {

constexpr int kTileW = GB_TILE_W;              // output bytes per tile row
constexpr int kTileH = GB_TILE_H;              // output rows per tile
constexpr int kStripH = GB_STRIP_H;            // output rows per vertical-pass thread
constexpr int kHalo = GB_HALO;                 // halo bytes each side, >= r * C, multiple of 4
constexpr int kSeg = GB_SEG;                   // output bytes per horizontal-pass thread
constexpr int kBlockThreads = GB_BLOCK_THREADS;
constexpr int kRowWords = kTileW + 2 * kHalo;  // shared row: one 32-bit intermediate per byte
constexpr int kWordColumns = kRowWords / 4;
constexpr int kStrips = kTileH / kStripH;
constexpr int kStripRows = kStripH + 2 * kRadiusY;
constexpr int kSegments = kTileW / kSeg;
constexpr int kReach = kRadiusX * kChannels;  // horizontal taps reach +-kReach byte columns
// The first intermediate a segment reads, rounded down to a 16-byte shared load, and how far
// into that load the segment's span starts.
constexpr int kLoadBase = (kHalo - kReach) / 4 * 4;
constexpr int kLoadSkip = kHalo - kReach - kLoadBase;
constexpr int kLoadWords = (kLoadSkip + kSeg + 2 * kReach + 3) / 4 * 4;
// The last segment's loads end at kLoadBase + kTileW - kSeg + kLoadWords words, which is
// kTileW + kHalo + round_up(kReach, 4) <= kRowWords: never past its row.

static_assert(kTileW % kSeg == 0 && kSeg % 4 == 0 && kHalo % 4 == 0, "tile shape");
static_assert(kHalo >= kReach, "halo narrower than the kernel");
static_assert(kTileH % kStripH == 0, "strips must tile the rows");

// Byte k of `word` as a float, exactly: PRMT assembles the bits of 2^23 + byte, then 2^23 goes.
__device__ __forceinline__ float byte_as_float(unsigned word, int k) {
  return __uint_as_float(__byte_perm(word, 0x4B000000u, 0x7540u + k)) - 8388608.0f;
}

// Where the four byte columns of a strip at the image edge read from, worked out once per strip:
// an in-image byte column, or -1 and the constant border's value.
struct EdgeColumns {
  int offset[4];
  unsigned constant[4];
};

__device__ __forceinline__ EdgeColumns edge_columns(int xb, int width) {
  EdgeColumns c;
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    int channel;
    c.offset[k] = source_column(xb + k, width, channel);
    c.constant[k] = border_value[channel];
  }
  return c;
}

// Four bytes of row y (any row) for an edge strip: the row is mapped once, and the four loads
// are independent, so the strip's rows are all in flight together as in the interior.
__device__ __forceinline__ unsigned edge_word(const unsigned char* __restrict__ in, int pitch,
                                              const EdgeColumns& columns, int y, int height) {
  const int sy = border_index(y, height);
  const unsigned char* row = in + static_cast<size_t>(sy < 0 ? 0 : sy) * pitch;
  unsigned word = 0;
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const unsigned v = (sy < 0 || columns.offset[k] < 0) ? columns.constant[k]
                                                          : __ldg(row + columns.offset[k]);
    word |= v << (8 * k);
  }
  return word;
}

// The vertical pass for one word column and one strip; `interior`: no border can be reached.
// acc starts at 2^7 (the rounding term); a = acc < 2^24 is exact in FP32. Adding 2^31 rounding
// down leaves m = floor(a / 2^8) in the low mantissa bits (the float's ulp there is 2^8): the
// float's bits are 0x4F000000 + m. They are stored whole. The horizontal pass multiplies them by
// taps summing to 2^16 in uint32 arithmetic (mod 2^32), where the constant part contributes
// 0x4F000000 * 2^16 = 0x4F * 2^40 = 0 (mod 2^32): it sees exactly sum q * m. No conversion.
__device__ __forceinline__ void vertical_strip(const unsigned char* __restrict__ in, int pitch,
                                               int width, int height, int xb, int row0,
                                               bool interior, unsigned* __restrict__ shared_out) {
  // Edge strips map their four columns once; each row then costs one row mapping and four
  // independent byte loads (interior strips: one word load).
  const EdgeColumns columns = interior ? EdgeColumns{} : edge_columns(xb, width);
  float acc[kStripH][4];
#pragma unroll
  for (int o = 0; o < kStripH; ++o) {
#pragma unroll
    for (int k = 0; k < 4; ++k) acc[o][k] = 128.0f;
  }
#pragma unroll
  for (int t = 0; t < kStripRows; ++t) {
    const int y = row0 - kRadiusY + t;
    const unsigned word =
        interior ? __ldg(reinterpret_cast<const unsigned*>(in + static_cast<size_t>(y) * pitch + xb))
                 : edge_word(in, pitch, columns, y, height);
    float v[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) v[k] = byte_as_float(word, k);
#pragma unroll
    for (int o = 0; o < kStripH; ++o) {
      const int j = t - o;  // this input row is tap j of output row o
      if (j >= 0 && j < kSizeY) {
#pragma unroll
        for (int k = 0; k < 4; ++k) acc[o][k] = fmaf(static_cast<float>(tap_y(j)), v[k], acc[o][k]);
      }
    }
  }
#pragma unroll
  for (int o = 0; o < kStripH; ++o) {
    unsigned bits[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) bits[k] = __float_as_uint(__fadd_rd(acc[o][k], 2147483648.0f));
    *reinterpret_cast<uint4*>(shared_out + o * kRowWords) = make_uint4(bits[0], bits[1], bits[2], bits[3]);
  }
}

// Four output bytes: byte 3 of each of four sums.
__device__ __forceinline__ unsigned pack_outputs(const unsigned* b) {
  const unsigned lo = __byte_perm(b[0], b[1], 0x0073);
  const unsigned hi = __byte_perm(b[2], b[3], 0x0073);
  return __byte_perm(lo, hi, 0x5410);
}

// Stores kSeg output bytes at out_row + xs; cut at the image's right edge.
__device__ __forceinline__ void store_segment(const unsigned* words, unsigned char* __restrict__ out_row,
                                              int xs, int row_bytes) {
  if (xs + kSeg <= row_bytes) {
#pragma unroll
    for (int w = 0; w < kSeg / 4; ++w) *reinterpret_cast<unsigned*>(out_row + xs + 4 * w) = words[w];
  } else {
    for (int s = 0; s < kSeg && xs + s < row_bytes; ++s) out_row[xs + s] = static_cast<unsigned char>(words[s / 4] >> (8 * (s % 4)));
  }
}

// Words i..i+3 of a segment's span (m[kLoadSkip + k] is the value k byte columns right of the
// segment's leftmost tap), in one 16-byte shared load. Called where a chunk is first needed, so
// only a sliding window of the span is live in registers.
__device__ __forceinline__ void load_chunk(const unsigned* __restrict__ mid_row, unsigned* m, int i) {
  const uint4 v = *reinterpret_cast<const uint4*>(mid_row + i);
  m[i] = v.x;
  m[i + 1] = v.y;
  m[i + 2] = v.z;
  m[i + 3] = v.w;
}

// Loads the chunks whose first use is span word `last` (all up to it when `first`).
__device__ __forceinline__ void load_through(const unsigned* __restrict__ mid_row, unsigned* m,
                                             int last, bool first) {
#pragma unroll
  for (int i = 0; i < kLoadWords; i += 4) {
    if (i <= last && (first || i == last)) load_chunk(mid_row, m, i);
  }
}

// The horizontal pass for kSeg output bytes of one row, uint32 (b < 2^32, weights.hpp; the sums
// start at 2^23, the rounding term). Folded: each output is q_r * m[0] + sum over the pairs
// q_i * (m[-d] + m[+d]), d = (r - i) * C.
__device__ __forceinline__ void horizontal_segment(const unsigned* __restrict__ mid_row,
                                                   unsigned char* __restrict__ out_row, int xs,
                                                   int row_bytes) {
  unsigned m[kLoadWords];
  unsigned words[kSeg / 4];
#if GB_FOLD
#pragma unroll
  for (int w = 0; w < kSeg / 4; ++w) {  // four outputs at a time, packed as soon as made
    unsigned b[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const int s = 4 * w + k;
      load_through(mid_row, m, kLoadSkip + s + 2 * kReach, s == 0);
      const int c = kLoadSkip + s + kReach;  // the output's own column
      b[k] = kHorizontalRound + tap_x(kRadiusX) * m[c];
#pragma unroll
      for (int i = 0; i < kRadiusX; ++i) {
        const int d = (kRadiusX - i) * kChannels;
        b[k] += tap_x(i) * (m[c - d] + m[c + d]);
      }
    }
    words[w] = pack_outputs(b);
  }
#else
  unsigned acc[kSeg];
  // Each value is added into every output it is a tap of.
#pragma unroll
  for (int s = 0; s < kSeg; ++s) acc[s] = kHorizontalRound;
#pragma unroll
  for (int v = 0; v < kSeg + 2 * kReach; ++v) {
    load_through(mid_row, m, kLoadSkip + v, v == 0);
#pragma unroll
    for (int s = 0; s < kSeg; ++s) {
      const int d = v - s;  // offset of value v from output s's leftmost tap, in bytes
      if (d >= 0 && d % kChannels == 0 && d / kChannels < kSizeX) acc[s] += tap_x(d / kChannels) * m[kLoadSkip + v];
    }
  }
#pragma unroll
  for (int w = 0; w < kSeg / 4; ++w) words[w] = pack_outputs(acc + 4 * w);
#endif
  store_segment(words, out_row, xs, row_bytes);
}

}  // namespace gb

extern "C" __global__ void __launch_bounds__(gb::kBlockThreads, 2)
    gb_blur_kernel(const unsigned char* __restrict__ in, int in_pitch, unsigned char* __restrict__ out,
                   int out_pitch, int width, int height) {
  using namespace gb;
  extern __shared__ uint4 shared_words[];  // kTileH rows of kRowWords intermediates (dynamic)
  unsigned* mid = reinterpret_cast<unsigned*>(shared_words);
  const int row_bytes = width * kChannels;
  const int x0 = blockIdx.x * kTileW;
  const int y0 = blockIdx.y * kTileH;

  for (int item = threadIdx.x; item < kStrips * kWordColumns; item += kBlockThreads) {
    const int strip = item / kWordColumns;
    const int column = item - strip * kWordColumns;
    const int row0 = y0 + strip * kStripH;
    if (row0 >= height) continue;
    const int xb = x0 - kHalo + 4 * column;
    const bool interior = xb >= 0 && xb + 4 <= row_bytes && row0 - kRadiusY >= 0 &&
                          row0 + kStripH + kRadiusY <= height;
    vertical_strip(in, in_pitch, width, height, xb, row0, interior,
                   mid + strip * kStripH * kRowWords + 4 * column);
  }
  __syncthreads();

  // The kSegments threads of one row are adjacent: their 16-byte loads, kSeg words apart, fall
  // on distinct banks (kSeg = 4 mod 32 words or similar; codegen picks kSeg), and their stores
  // are one contiguous run of the output row.
  for (int item = threadIdx.x; item < kTileH * kSegments; item += kBlockThreads) {
    const int r = item / kSegments;
    const int segment = item - r * kSegments;
    const int y = y0 + r;
    const int xs = x0 + segment * kSeg;
    if (y >= height || xs >= row_bytes) continue;
    horizontal_segment(mid + r * kRowWords + kLoadBase + segment * kSeg,
                       out + static_cast<size_t>(y) * out_pitch, xs, row_bytes);
  }
}
