// blur.cu — fused separable Gaussian blur of interleaved 8-bit images, one launch.
// A template: codegen (src/codegen.cpp) prepends a prelude that defines the GB_* macros for one
// (taps, channels, border, tile) choice; the #ifndef defaults below let it compile on its own.
//
// Arithmetic (src/weights.hpp, identical in src/cpu_blur.cpp): taps per axis sum to 2^16;
//   vertical   a = sum_j qy_j * p          < 2^24, m = (a + 2^7) >> 8  (16 bits, 8 fractional)
//   horizontal b = sum_i qx_i * m          < 2^32, out = (b + 2^23) >> 24
// An interleaved row of C channels is treated as one byte row whose horizontal taps are C apart.

#ifndef GB_CHANNELS
#define GB_CHANNELS 3
#define GB_RADIUS_X 1
#define GB_RADIUS_Y 1
#define GB_TAPS_X \
  { 16384u, 32768u, 16384u }
#define GB_TAPS_Y \
  { 16384u, 32768u, 16384u }
#define GB_BORDER 0
#define GB_BORDER_VALUE \
  { 0u, 0u, 0u, 0u }
#define GB_TILE_W 256
#define GB_TILE_H 16
#define GB_BLOCK_THREADS 256
#endif

// Border modes; the numbers match codegen's border_number() and src/border.hpp's order.
#define GB_BORDER_CLAMP 0
#define GB_BORDER_REFLECT 1
#define GB_BORDER_REFLECT101 2
#define GB_BORDER_WRAP 3
#define GB_BORDER_CONSTANT 4

namespace {

constexpr int kChannels = GB_CHANNELS;
constexpr int kRadiusX = GB_RADIUS_X;
constexpr int kRadiusY = GB_RADIUS_Y;
constexpr int kTileW = GB_TILE_W;  // output bytes per block row
constexpr int kTileH = GB_TILE_H;  // output rows per block
constexpr int kBlockThreads = GB_BLOCK_THREADS;
constexpr int kHaloBytes = kRadiusX * kChannels;
constexpr int kSharedW = kTileW + 2 * kHaloBytes;

constexpr unsigned kVerticalRound = 1u << 7;
constexpr int kVerticalShift = 8;
constexpr unsigned kHorizontalRound = 1u << 23;
constexpr int kHorizontalShift = 24;

__constant__ unsigned gb_taps_x[2 * kRadiusX + 1] = GB_TAPS_X;
__constant__ unsigned gb_taps_y[2 * kRadiusY + 1] = GB_TAPS_Y;
__constant__ unsigned gb_border_value[4] = GB_BORDER_VALUE;

__device__ __forceinline__ int floor_mod(int i, int n) {
  const int r = i % n;
  return r < 0 ? r + n : r;
}

// Mirrors gpublur::border_index: the in-image index that i reads, or -1 for a constant.
__device__ __forceinline__ int border_index(int i, int n) {
  if (i >= 0 && i < n) return i;
#if GB_BORDER == GB_BORDER_CLAMP
  return i < 0 ? 0 : n - 1;
#elif GB_BORDER == GB_BORDER_REFLECT
  const int k = floor_mod(i, 2 * n);
  return k < n ? k : 2 * n - 1 - k;
#elif GB_BORDER == GB_BORDER_REFLECT101
  if (n == 1) return 0;
  const int k = floor_mod(i, 2 * n - 2);
  return k < n ? k : 2 * n - 2 - k;
#elif GB_BORDER == GB_BORDER_WRAP
  return floor_mod(i, n);
#else
  return -1;
#endif
}

// Vertical pass for one byte column `xb` (may lie in the horizontal halo) of row y.
__device__ __forceinline__ unsigned vertical_sum(const unsigned char* __restrict__ in, int xb,
                                                 int y, int width, int height, int row_bytes) {
  const int px = xb >= 0 ? xb / kChannels : -((-xb + kChannels - 1) / kChannels);
  const int channel = xb - px * kChannels;
  const int sx = border_index(px, width);
  if (sx < 0) return gb_border_value[channel] << 16;  // every tap reads the constant
  const unsigned char* column = in + sx * kChannels + channel;
  unsigned a = 0;
#pragma unroll 32
  for (int j = 0; j < 2 * kRadiusY + 1; ++j) {
    const int sy = border_index(y + j - kRadiusY, height);
    const unsigned p =
        sy < 0 ? gb_border_value[channel]
               : static_cast<unsigned>(__ldg(column + static_cast<size_t>(sy) * row_bytes));
    a += gb_taps_y[j] * p;
  }
  return a;
}

}  // namespace

// One block blurs kTileH rows x kTileW bytes: the vertical pass fills shared memory with the
// tile plus its horizontal halo, then the horizontal pass reads it back.
extern "C" __global__ void __launch_bounds__(kBlockThreads)
    gb_blur_kernel(const unsigned char* __restrict__ in, unsigned char* __restrict__ out, int width,
                   int height) {
  __shared__ unsigned short mid[kTileH][kSharedW];
  const int row_bytes = width * kChannels;
  const int x0 = blockIdx.x * kTileW;
  const int y0 = blockIdx.y * kTileH;

  for (int idx = threadIdx.x; idx < kTileH * kSharedW; idx += kBlockThreads) {
    const int r = idx / kSharedW;
    const int col = idx - r * kSharedW;
    const int y = y0 + r;
    if (y >= height) break;  // idx only grows, so every later row is outside too
    const unsigned a = vertical_sum(in, x0 - kHaloBytes + col, y, width, height, row_bytes);
    mid[r][col] = static_cast<unsigned short>((a + kVerticalRound) >> kVerticalShift);
  }
  __syncthreads();

  for (int idx = threadIdx.x; idx < kTileH * kTileW; idx += kBlockThreads) {
    const int r = idx / kTileW;
    const int col = idx - r * kTileW;
    const int y = y0 + r;
    if (y >= height) break;
    if (x0 + col >= row_bytes) continue;
    unsigned b = 0;
#pragma unroll 32
    for (int i = 0; i < 2 * kRadiusX + 1; ++i) b += gb_taps_x[i] * mid[r][col + i * kChannels];
    out[static_cast<size_t>(y) * row_bytes + x0 + col] =
        static_cast<unsigned char>((b + kHorizontalRound) >> kHorizontalShift);
  }
}
