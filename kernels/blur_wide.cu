// blur_wide.cu — fused separable blur for any kernel width: the vertical pass fills shared
// memory with the tile plus its horizontal halo, then the horizontal pass reads it back. Taps
// come from constant memory, so the loops need not unroll; used where blur_tiled.cu's unrolled
// code would grow too large.
#ifndef GB_COMMON_INCLUDED
#include "common.cuh"
#endif

#ifndef GB_TILE_W
#define GB_TILE_W 256
#define GB_TILE_H 16
#define GB_BLOCK_THREADS 256
#endif

namespace gb {

constexpr int kTileW = GB_TILE_W;  // output bytes per block row
constexpr int kTileH = GB_TILE_H;  // output rows per block
constexpr int kBlockThreads = GB_BLOCK_THREADS;
constexpr int kHaloBytes = kRadiusX * kChannels;
constexpr int kSharedW = kTileW + 2 * kHaloBytes;

// Vertical sum for byte column xb (may lie in the horizontal halo) of output row y.
__device__ __forceinline__ unsigned vertical_sum(const unsigned char* __restrict__ in, int pitch,
                                                 int xb, int y, int width, int height) {
  int channel;
  const int sx = source_column(xb, width, channel);
  if (sx < 0) return constant_border(channel) << 16;  // every tap reads the constant
  const unsigned char* column = in + sx;
  unsigned a = 0;
#pragma unroll 8
  for (int j = 0; j < kSizeY; ++j) {
    const int sy = border_index(y + j - kRadiusY, height);
    const unsigned p = sy < 0 ? constant_border(channel) : __ldg(column + static_cast<size_t>(sy) * pitch);
    a += taps_y[j] * p;
  }
  return a;
}

}  // namespace gb

extern "C" __global__ void __launch_bounds__(gb::kBlockThreads)
    gb_blur_kernel(const unsigned char* __restrict__ in, int in_pitch, unsigned char* __restrict__ out,
                   int out_pitch, int width, int height) {
  using namespace gb;
  in = layer_image(in, in_pitch, height);  // this block's image of a stack
  out = layer_image(out, out_pitch, height);
  __shared__ unsigned short mid[kTileH][kSharedW];
  const int row_bytes = width * kChannels;
  const int x0 = blockIdx.x * kTileW;
  const int y0 = blockIdx.y * kTileH;

  for (int idx = threadIdx.x; idx < kTileH * kSharedW; idx += kBlockThreads) {
    const int r = idx / kSharedW;
    const int col = idx - r * kSharedW;
    const int y = y0 + r;
    if (y >= height) break;  // idx only grows, so every later row is outside too
    const unsigned a = vertical_sum(in, in_pitch, x0 - kHaloBytes + col, y, width, height);
    mid[r][col] = static_cast<unsigned short>((a + kVerticalRound) >> kVerticalShift);
  }
  __syncthreads();

  for (int idx = threadIdx.x; idx < kTileH * kTileW; idx += kBlockThreads) {
    const int r = idx / kTileW;
    const int col = idx - r * kTileW;
    const int y = y0 + r;
    if (y >= height) break;
    if (x0 + col >= row_bytes) continue;
    unsigned b = kHorizontalRound;
#pragma unroll 8
    for (int i = 0; i < kSizeX; ++i) b += taps_x[i] * mid[r][col + i * kChannels];
    out[static_cast<size_t>(y) * out_pitch + x0 + col] = static_cast<unsigned char>(b >> kHorizontalShift);
  }
}
