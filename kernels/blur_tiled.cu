// blur_tiled.cu — the fast fused separable blur for kernels up to radius 32 (and radius x
// channels up to 128). One block makes a kTileH x kTileW-byte tile of output:
//
//  1. vertical pass: each thread takes 4 adjacent byte columns (one 32-bit word) and walks a
//     strip of kStripH output rows, reading each of its kStripH + 2r input rows once (coalesced
//     words, straight from global memory) and adding it into every output row it touches. The
//     sums stay below 2^24, so FP32 adds them exactly (twice the rate of integer multiply-adds).
//     Rounded 16-bit results go to shared memory for the tile plus its horizontal halo.
//  2. horizontal pass: each thread reads kSeg + 2rC intermediate values of one row once, adds
//     each into every output it touches (uint32, exact), and stores 16 output bytes at once.
//
// Border handling costs nothing in interior blocks: only strips that touch the image edge take
// the per-byte path that applies the border.
#ifndef GB_COMMON_INCLUDED
#include "common.cuh"
#endif

#ifndef GB_TILE_W
#define GB_TILE_W 256
#define GB_TILE_H 32
#define GB_STRIP_H 8
#define GB_HALO 4
#define GB_SEG 16
#define GB_ROW_STRIDE 266
#define GB_BLOCK_THREADS 256
#endif

namespace gb {

constexpr int kTileW = GB_TILE_W;              // output bytes per tile row
constexpr int kTileH = GB_TILE_H;              // output rows per tile
constexpr int kStripH = GB_STRIP_H;            // output rows per vertical-pass thread
constexpr int kHalo = GB_HALO;                 // halo bytes each side, >= r * C, multiple of 4
constexpr int kSeg = GB_SEG;                   // output bytes per horizontal-pass thread
constexpr int kRowStride = GB_ROW_STRIDE;      // shared row length in 16-bit values; /2 is odd
constexpr int kBlockThreads = GB_BLOCK_THREADS;
constexpr int kWordColumns = (kTileW + 2 * kHalo) / 4;
constexpr int kStrips = kTileH / kStripH;
constexpr int kStripRows = kStripH + 2 * kRadiusY;
constexpr int kSegments = kTileW / kSeg;
constexpr int kSpan = kSeg + 2 * kRadiusX * kChannels;

static_assert(kTileW % kSeg == 0 && kSeg % 4 == 0 && kHalo % 4 == 0, "tile shape");
static_assert(kHalo >= kRadiusX * kChannels, "halo narrower than the kernel");
static_assert(kTileH % kStripH == 0, "strips must tile the rows");
static_assert((kRowStride / 2) % 2 == 1, "odd word stride keeps shared rows on distinct banks");

// Byte k of `word` as a float, exactly: PRMT assembles the bits of 2^23 + byte, then 2^23 goes.
__device__ __forceinline__ float byte_as_float(unsigned word, int k) {
  return __uint_as_float(__byte_perm(word, 0x4B000000u, 0x7540u + k)) - 8388608.0f;
}

// The vertical pass for one word column and one strip; `interior`: no border can be reached.
// acc starts at 2^7 (the rounding term); a = acc < 2^24 is exact in FP32. Adding 2^31 rounding
// down leaves floor(a / 2^8) in the low mantissa bits (the float's ulp there is 2^8), so the
// 16-bit intermediate is the low half of the float's bits: no conversion instruction needed.
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
    shared_out[o * (kRowStride / 2)] = __byte_perm(bits[0], bits[1], 0x5410);
    shared_out[o * (kRowStride / 2) + 1] = __byte_perm(bits[2], bits[3], 0x5410);
  }
}

// The horizontal pass for kSeg output bytes of one row: each intermediate value is read once
// and added into every output it is a tap of. b < 2^32 (weights.hpp); acc starts at 2^23.
__device__ __forceinline__ void horizontal_segment(const unsigned short* __restrict__ mid_row,
                                                   unsigned char* __restrict__ out_row, int xs,
                                                   int row_bytes) {
  unsigned acc[kSeg];
#pragma unroll
  for (int s = 0; s < kSeg; ++s) acc[s] = kHorizontalRound;
#pragma unroll
  for (int v = 0; v < kSpan; ++v) {
    const unsigned m = mid_row[v];
#pragma unroll
    for (int s = 0; s < kSeg; ++s) {
      const int d = v - s;  // offset of value v from output s's leftmost tap, in bytes
      if (d >= 0 && d % kChannels == 0 && d / kChannels < kSizeX) acc[s] += tap_x(d / kChannels) * m;
    }
  }
  unsigned words[kSeg / 4];
#pragma unroll
  for (int w = 0; w < kSeg / 4; ++w) {  // byte 3 of each accumulator is the output
    const unsigned lo = __byte_perm(acc[4 * w], acc[4 * w + 1], 0x0073);
    const unsigned hi = __byte_perm(acc[4 * w + 2], acc[4 * w + 3], 0x0073);
    words[w] = __byte_perm(lo, hi, 0x5410);
  }
  if (xs + kSeg <= row_bytes) {
#pragma unroll
    for (int w = 0; w < kSeg / 4; w += 4) {
      *reinterpret_cast<uint4*>(out_row + xs + 4 * w) = make_uint4(words[w], words[w + 1], words[w + 2], words[w + 3]);
    }
  } else {
    for (int s = 0; s < kSeg && xs + s < row_bytes; ++s) out_row[xs + s] = static_cast<unsigned char>(words[s / 4] >> (8 * (s % 4)));
  }
}

}  // namespace gb

extern "C" __global__ void __launch_bounds__(gb::kBlockThreads, 2)
    gb_blur_kernel(const unsigned char* __restrict__ in, int in_pitch, unsigned char* __restrict__ out,
                   int out_pitch, int width, int height) {
  using namespace gb;
  in = layer_image(in, in_pitch, height);  // this block's image of a stack
  out = layer_image(out, out_pitch, height);
  __shared__ unsigned short mid[kTileH * kRowStride];
  const int row_bytes = width * kChannels;
  const int x0 = blockIdx.x * kTileW;
  const int y0 = blockIdx.y * kTileH;

  for (int item = threadIdx.x; item < kStrips * kWordColumns; item += kBlockThreads) {
    const int strip = item / kWordColumns;
    const int column = item - strip * kWordColumns;
    const int row0 = y0 + strip * kStripH;
    if (row0 >= height) continue;
    const int xb = x0 - kHalo + 4 * column;
    unsigned* shared_out = reinterpret_cast<unsigned*>(mid + strip * kStripH * kRowStride + 4 * column);
    const bool interior = xb >= 0 && xb + 4 <= row_bytes && row0 - kRadiusY >= 0 &&
                          row0 + kStripH + kRadiusY <= height;
    vertical_strip(in, in_pitch, width, height, xb, row0, interior, shared_out);
  }
  __syncthreads();

  // Consecutive threads take consecutive rows: with the odd word stride, their shared reads
  // fall on distinct banks.
  for (int item = threadIdx.x; item < kTileH * kSegments; item += kBlockThreads) {
    const int segment = item / kTileH;
    const int r = item - segment * kTileH;
    const int y = y0 + r;
    const int xs = x0 + segment * kSeg;
    if (y >= height || xs >= row_bytes) continue;
    horizontal_segment(mid + r * kRowStride + kHalo + segment * kSeg - kRadiusX * kChannels,
                       out + static_cast<size_t>(y) * out_pitch, xs, row_bytes);
  }
}
