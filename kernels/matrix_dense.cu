// matrix_dense.cu — a convolution matrix that is not of rank one, in one launch: a block loads
// its tile of pixels with the matrix's reach around it into shared memory (pixel_tile.cuh: the
// border rule applied once per loaded pixel), then each thread sums every weight times the pixel it
// reaches, the matrix's rows outer and its columns inner (the order the CPU twin and MatrixFloat's
// roundings follow), and stores through the policy's finish (kernels/arithmetic.cuh's Matrix8,
// Matrix16, MatrixFloat), the very function the CPU twin stores through.
//
// A block's GB_BLOCK_THREADS threads stand GB_TILE_W across; each computes kRowsPerThread
// consecutive pixels of its column of the tile, so the tile's load and the barrier after it are
// shared by all of them. A matrix of up to 25 weights (kSlide) is walked by the tile's rows:
// each loaded pixel is added, with the weight of its row, to every output of the thread that
// reaches it, so a thread reads kRowsPerThread + 2 ry rows of the tile, not kRowsPerThread
// (2 ry + 1) of them; each output still sums its weights rows outer and columns inner. (Larger
// matrices walked so keep so many loaded pixels in registers that fewer blocks fit an SM, and
// ran slower: each of their outputs sums its own window.)
//
// The finishing numbers are compile-time constants: a divisor of 1 divides nothing, and any
// other divides by multiplying, not by a 64-bit division per sample.
//
// codegen emits: prelude (GB_POLICY, the weights as Policy::Tap literals in GB_MATRIX, the finish
// numbers GB_FINISH_NUMBERS, GB_KEEP_ALPHA, the border pixel, GB_TILE_W x GB_TILE_H pixels per
// block), common.cuh, arithmetic.cuh, tile_rows.cuh, pixel_tile.cuh, this file.
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
#define GB_POLICY Matrix8
#define GB_MATRIX {-1, -1, -1, -1, 8, -1, -1, -1, -1}
#define GB_FINISH_NUMBERS {1, 0, 1, 4080}
#define GB_KEEP_ALPHA 0
#define GB_BORDER_PIXEL {0, 0, 0, 0}
#define GB_TILE_W 32
#define GB_TILE_H 8
#define GB_BLOCK_THREADS 256
#endif

namespace gb {

typedef gb_arith::GB_POLICY Policy;
typedef Policy::Sample Sample;
typedef Policy::Sum Sum;

constexpr int kTileW = GB_TILE_W;  // output pixels per block, across and down
constexpr int kTileH = GB_TILE_H;
constexpr int kThreadRows = GB_BLOCK_THREADS / kTileW;  // the block's threads: kTileW across
constexpr int kRowsPerThread = kTileH / kThreadRows;    // each thread's outputs, one under another
static_assert(kRowsPerThread * kThreadRows == kTileH, "whole rows of threads");
constexpr int kLoadW = kTileW + 2 * kRadiusX;  // the pixels a block's outputs reach
constexpr int kLoadH = kTileH + 2 * kRadiusY;
// Small matrices are unrolled whole, so each weight is an immediate (a zero weight costs
// nothing); larger ones read the weights from constant memory, one row of the matrix unrolled.
constexpr bool kUnrollAll = kSizeX * kSizeY <= 121;
constexpr bool kSlide = kSizeX * kSizeY <= 25;  // sum_column: 3x3, 5x5, 3x7 ...
// Whether the tile comes in 16-byte pieces (pixel_tile.cuh). Measured on an H100: faster for
// the unrolled matrices (3x3 0.182 -> 0.132 ms at 8K RGB), but 1.7x and 9x slower for 31x31
// and 15x15 (whose matrix rows run in a loop), for a cause not found; those copy pixels.
constexpr bool kPieces = kUnrollAll;

__constant__ Policy::Tap matrix_taps[kSizeY * kSizeX] = GB_MATRIX;
// The constant border's pixel in the image's own sample scale.
__constant__ Sample border_pixel[4] = GB_BORDER_PIXEL;

typedef PixelTile<Sample, kLoadW, kLoadH> Tile;
constexpr int kTileRowSamples = Tile::kRowSamples;

__device__ __forceinline__ Policy::Tap matrix_tap(int n) {
  if constexpr (kUnrollAll) {  // a constant index: the weight is an immediate
    constexpr Policy::Tap taps[kSizeY * kSizeX] = GB_MATRIX;
    return taps[n];
  } else {
    return matrix_taps[n];
  }
}

// One output pixel from the tile: every weight times the pixel it reaches, the matrix's rows
// outer and its columns inner; `at` is the tile pixel under the matrix's first weight.
__device__ __forceinline__ void sum_pixel(const Sample* at, Sum* sum) {
#pragma unroll
  for (int k = 0; k < kChannels; ++k) sum[k] = 0;
#pragma unroll(kUnrollAll ? kSizeY : 1)
  for (int j = 0; j < kSizeY; ++j) {
    const Sample* row = at + j * kTileRowSamples;
#pragma unroll
    for (int i = 0; i < kSizeX; ++i) {
      const Policy::Tap q = matrix_tap(j * kSizeX + i);
#pragma unroll
      for (int k = 0; k < kChannels; ++k) {
        sum[k] = gb_arith::mac(sum[k], q, Policy::prepare(row + i * kChannels, k, kChannels));
      }
    }
  }
}

// kRowsPerThread outputs one under another (kSlide): the tile's rows from `at`, the pixel
// under the first output's first weight, each pixel read once and added to every output it
// reaches. Output r meets matrix row j at tile row r + j, so for each output the rows come in
// order and, within a row, the columns: the same sums, in the same order, as sum_pixel's.
__device__ __forceinline__ void sum_column(const Sample* at,
                                           Sum (&sum)[kRowsPerThread][kChannels]) {
#pragma unroll
  for (int r = 0; r < kRowsPerThread; ++r) {
#pragma unroll
    for (int k = 0; k < kChannels; ++k) sum[r][k] = 0;
  }
#pragma unroll
  for (int t = 0; t < kRowsPerThread + kSizeY - 1; ++t) {
    const Sample* row = at + t * kTileRowSamples;
#pragma unroll
    for (int i = 0; i < kSizeX; ++i) {
#pragma unroll
      for (int k = 0; k < kChannels; ++k) {
        const auto p = Policy::prepare(row + i * kChannels, k, kChannels);
#pragma unroll
        for (int r = 0; r < kRowsPerThread; ++r) {
          const int j = t - r;  // the matrix row that meets tile row t in output r
          if (j >= 0 && j < kSizeY)
            sum[r][k] = gb_arith::mac(sum[r][k], matrix_tap(j * kSizeX + i), p);
        }
      }
    }
  }
}

}  // namespace gb

extern "C" __global__ void __launch_bounds__(GB_BLOCK_THREADS)
    gb_matrix_kernel(const unsigned char* __restrict__ in, int in_pitch,
                     unsigned char* __restrict__ out, int out_pitch, int width, int height) {
  using namespace gb;
  __shared__ __align__(16) Sample tile[Tile::kSamples];
  in = layer_image(in, in_pitch, height);  // this block's image of a stack
  out = layer_image(out, out_pitch, height);
  const int x0 = blockIdx.x * kTileW;
  const int y0 = blockIdx.y * kTileH;
  const int lead = Tile::load<kPieces>(tile, border_pixel, in, in_pitch, x0, y0, width, height);
  __syncthreads();
  const int tx = threadIdx.x % kTileW;  // this thread's column of the tile (a 1-D block)
  const int x = x0 + tx;
  const int ty0 = threadIdx.x / kTileW * kRowsPerThread;  // its first row of the tile
  if (x >= width || y0 + ty0 >= height) return;
  constexpr Policy::Numbers numbers = GB_FINISH_NUMBERS;  // constants: folded into the finish
  const auto store = [&](int r, const Sum* sum) {
    const int ty = ty0 + r;
    const Sample* centre =
        tile + lead + (ty + kRadiusY) * kTileRowSamples + (tx + kRadiusX) * kChannels;
    Sample* dst =
        reinterpret_cast<Sample*>(out + static_cast<size_t>(y0 + ty) * out_pitch) + x * kChannels;
    Policy::finish(sum, centre, dst, kChannels, GB_KEEP_ALPHA, numbers);
  };
  const Sample* at = tile + lead + ty0 * kTileRowSamples + tx * kChannels;
  if constexpr (kSlide) {
    Sum sum[kRowsPerThread][kChannels];
    sum_column(at, sum);
#pragma unroll
    for (int r = 0; r < kRowsPerThread; ++r) {
      if (y0 + ty0 + r < height) store(r, sum[r]);
    }
  } else {
#pragma unroll 1
    for (int r = 0; r < kRowsPerThread && y0 + ty0 + r < height; ++r) {
      Sum sum[kChannels];
      sum_pixel(at + r * kTileRowSamples, sum);
      store(r, sum);
    }
  }
}
