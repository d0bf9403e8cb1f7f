// separable_tile.cu — blur_general.cu's two passes in one launch, for the filters that take its
// policies beyond the Gaussian (a matrix of rank one, the unsharp mask) where a block's tile fits
// shared memory: the block loads its tile of pixels with the filter's reach around it (the border
// applied once per loaded pixel), sums each column of it into the intermediate in shared memory
// (the vertical pass), then each thread sums its pixels' rows of intermediates and stores through
// the policy's finish. The intermediate never reaches global memory. The sums are
// blur_general.cu's, term for term and in its order: a column outside the image under the
// constant border is its constant pixel all the way down, whose vertical sum is constant_column's.
//
// codegen emits: prelude (GB_POLICY, GB_TAPS_X / GB_TAPS_Y as Policy::Tap literals, the border
// pixel, GB_FINISH_NUMBERS, GB_KEEP_ALPHA, GB_TILE_W x GB_TILE_H pixels per block of
// GB_BLOCK_THREADS threads), common.cuh, arithmetic.cuh, tile_rows.cuh, pixel_tile.cuh, this file.
#ifndef GB_COMMON_INCLUDED
#include "common.cuh"
#endif
#ifndef GB_ARITHMETIC_INCLUDED
#include "arithmetic.cuh"
#endif
#ifndef GB_PIXEL_TILE_INCLUDED
#include "pixel_tile.cuh"
#endif

#ifndef GB_POLICY
#define GB_POLICY Unsharp8
#define GB_TAPS_X {16384u, 32768u, 16384u}
#define GB_TAPS_Y {16384u, 32768u, 16384u}
#define GB_FINISH_NUMBERS {1048576ull, 0ull}
#define GB_KEEP_ALPHA 0
#define GB_BORDER_PIXEL {0, 0, 0, 0}
#define GB_TILE_W 32
#define GB_TILE_H 32
#define GB_BLOCK_THREADS 256
#endif

namespace gb {

typedef gb_arith::GB_POLICY Policy;
typedef Policy::Sample Sample;
typedef Policy::Mid Mid;
typedef Policy::Sum Sum;

constexpr int kTileW = GB_TILE_W;  // output pixels per block, across and down
constexpr int kTileH = GB_TILE_H;
constexpr int kThreadRows = GB_BLOCK_THREADS / kTileW;
constexpr int kRowsPerThread = kTileH / kThreadRows;
static_assert(kRowsPerThread * kThreadRows == kTileH, "whole rows of threads");
constexpr int kLoadW = kTileW + 2 * kRadiusX;  // the pixels a block's outputs reach
constexpr int kLoadH = kTileH + 2 * kRadiusY;

__constant__ Policy::Tap tile_taps_x[kSizeX] = GB_TAPS_X;
__constant__ Policy::Tap tile_taps_y[kSizeY] = GB_TAPS_Y;
__constant__ Sample border_pixel[4] = GB_BORDER_PIXEL;

typedef PixelTile<Sample, kLoadW, kLoadH> Tile;
constexpr int kTileRowSamples = Tile::kRowSamples;

// The vertical pass: mid[r][t] is the finished column sum of tile column t under output row r.
__device__ __forceinline__ void vertical_pass(const Sample* tile, int lead, Mid* mid) {
  for (int n = threadIdx.x; n < kLoadW * kTileH; n += GB_BLOCK_THREADS) {
    const int r = n / kLoadW;
    const int t = n - r * kLoadW;
    Mid acc[kChannels];
#pragma unroll
    for (int k = 0; k < kChannels; ++k) acc[k] = 0;
    for (int j = 0; j < kSizeY; ++j) {
      const Sample* pixel = tile + lead + (r + j) * kTileRowSamples + t * kChannels;
      const Policy::Tap q = tile_taps_y[j];
#pragma unroll
      for (int k = 0; k < kChannels; ++k) {
        acc[k] = gb_arith::mac(acc[k], q, Policy::prepare(pixel, k, kChannels));
      }
    }
#pragma unroll
    for (int k = 0; k < kChannels; ++k) mid[n * kChannels + k] = Policy::vertical_done(acc[k]);
  }
}

}  // namespace gb

extern "C" __global__ void __launch_bounds__(GB_BLOCK_THREADS)
    gb_separable_kernel(const unsigned char* __restrict__ in, int in_pitch,
                        unsigned char* __restrict__ out, int out_pitch, int width, int height) {
  using namespace gb;
  __shared__ __align__(16) Sample tile[Tile::kSamples];
  __shared__ Mid mid[kTileH * kLoadW * kChannels];
  in = layer_image(in, in_pitch, height);  // this block's image of a stack
  out = layer_image(out, out_pitch, height);
  const int x0 = blockIdx.x * kTileW;
  const int y0 = blockIdx.y * kTileH;
  const int lead = Tile::load<true>(tile, border_pixel, in, in_pitch, x0, y0, width, height);
  __syncthreads();
  vertical_pass(tile, lead, mid);
  __syncthreads();
  const int tx = threadIdx.x % kTileW;
  const int x = x0 + tx;
  if (x >= width) return;
  constexpr Policy::Numbers numbers = GB_FINISH_NUMBERS;  // constants: folded into the finish
#pragma unroll
  for (int r = 0; r < kRowsPerThread; ++r) {
    const int ty = threadIdx.x / kTileW + r * kThreadRows;
    const int y = y0 + ty;
    if (y >= height) return;
    Sum sum[kChannels];
#pragma unroll
    for (int k = 0; k < kChannels; ++k) sum[k] = 0;
    const Mid* row = mid + (ty * kLoadW + tx) * kChannels;
    for (int i = 0; i < kSizeX; ++i) {
      const Policy::Tap q = tile_taps_x[i];
#pragma unroll
      for (int k = 0; k < kChannels; ++k) sum[k] = gb_arith::mac(sum[k], q, row[i * kChannels + k]);
    }
    const Sample* centre =
        tile + lead + (ty + kRadiusY) * kTileRowSamples + (tx + kRadiusX) * kChannels;
    Sample* dst =
        reinterpret_cast<Sample*>(out + static_cast<size_t>(y) * out_pitch) + x * kChannels;
    Policy::finish(sum, centre, dst, kChannels, GB_KEEP_ALPHA, numbers);
  }
}
