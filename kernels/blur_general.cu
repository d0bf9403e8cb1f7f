// blur_general.cu — the separable filter for what the 8-bit fast kernels do not cover: 16-bit
// samples, floating point (HDR), premultiplied alpha, a convolution matrix of rank one (its column
// and row as the taps, signed) and the unsharp mask (the Gaussian's taps, a finish that sees the
// input pixel), in two launches through a global intermediate:
//
//  1. gb_vertical_kernel: one thread per pixel (all its channels) sums the column through it,
//     finished by the policy, into a pitched buffer of Policy::Mid values;
//  2. gb_horizontal_kernel: one thread per pixel sums its row of intermediates and finishes the
//     pixel (rounding, or un-premultiplying, which needs the pixel's alpha sum; with
//     GB_FINISH_NUMBERS, the policy's finish with those numbers and the input pixel).
//
// The arithmetic is kernels/arithmetic.cuh, the very source the CPU blur compiles. codegen emits:
// prelude (GB_POLICY, taps as Policy::Tap literals, the border pixel; for the matrix and the
// unsharp mask GB_FINISH_NUMBERS and GB_KEEP_ALPHA), common.cuh, arithmetic.cuh, this file.
#ifndef GB_COMMON_INCLUDED
#include "common.cuh"
#endif
#ifndef GB_ARITHMETIC_INCLUDED
#include "arithmetic.cuh"
#endif

#ifndef GB_POLICY
#define GB_POLICY Straight16
#define GB_BORDER_PIXEL {0, 0, 0, 0}
#endif

namespace gb {

typedef gb_arith::GB_POLICY Policy;
typedef Policy::Sample Sample;
typedef Policy::Mid Mid;
typedef Policy::Sum Sum;

__constant__ Policy::Tap general_taps_x[kSizeX] = GB_TAPS_X;
__constant__ Policy::Tap general_taps_y[kSizeY] = GB_TAPS_Y;
// The constant border's pixel in the image's own sample scale.
__constant__ Sample border_pixel[4] = GB_BORDER_PIXEL;

template <typename T>
__device__ __forceinline__ const T* row_of(const unsigned char* base, int pitch, int y) {
  return reinterpret_cast<const T*>(base + static_cast<size_t>(y) * pitch);
}

// The pixel's sums into its output samples: the blur's finish, or the matrix's and the unsharp
// mask's, which see the input pixel and their numbers.
__device__ __forceinline__ void finish_pixel(const Sum* sum, const Sample* in, Sample* out) {
#ifdef GB_FINISH_NUMBERS
  constexpr Policy::Numbers numbers = GB_FINISH_NUMBERS;  // constants: folded into the finish
  Policy::finish(sum, in, out, kChannels, GB_KEEP_ALPHA, numbers);
#else
  (void)in;
  Policy::finish(sum, out, kChannels);
#endif
}

}  // namespace gb

extern "C" __global__ void __launch_bounds__(GB_BLOCK_THREADS)
    gb_vertical_kernel(const unsigned char* __restrict__ in, int in_pitch,
                       unsigned char* __restrict__ mid, int mid_pitch, int width, int height) {
  using namespace gb;
  in = layer_image(in, in_pitch, height);  // this block's image of a stack, and its intermediate
  mid = layer_image(mid, mid_pitch, height);
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y;
  if (x >= width) return;
  Mid acc[kChannels];
#pragma unroll
  for (int k = 0; k < kChannels; ++k) acc[k] = 0;
  for (int j = 0; j < kSizeY; ++j) {
    const int sy = border_index(y + j - kRadiusY, height);
    const Sample* pixel = sy < 0 ? border_pixel : row_of<Sample>(in, in_pitch, sy) + x * kChannels;
    const Policy::Tap q = general_taps_y[j];
#pragma unroll
    for (int k = 0; k < kChannels; ++k) acc[k] = gb_arith::mac(acc[k], q, Policy::prepare(pixel, k, kChannels));
  }
  Mid* out = reinterpret_cast<Mid*>(mid + static_cast<size_t>(y) * mid_pitch) + x * kChannels;
#pragma unroll
  for (int k = 0; k < kChannels; ++k) out[k] = Policy::vertical_done(acc[k]);
}

extern "C" __global__ void __launch_bounds__(GB_BLOCK_THREADS)
    gb_horizontal_kernel(const unsigned char* __restrict__ mid, int mid_pitch,
                         unsigned char* __restrict__ out, int out_pitch, int width, int height,
                         const unsigned char* __restrict__ in, int in_pitch) {
  using namespace gb;
  mid = layer_image(mid, mid_pitch, height);
  out = layer_image(out, out_pitch, height);
  in = layer_image(in, in_pitch, height);
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y;
  if (x >= width || y >= height) return;
  const Mid* row = row_of<Mid>(mid, mid_pitch, y);
  Mid constant[kChannels];
#pragma unroll
  for (int k = 0; k < kChannels; ++k) {
    constant[k] = kConstantBorder ? gb_arith::constant_column<Policy>(general_taps_y, kSizeY,
                                                                      border_pixel, k, kChannels)
                                  : Mid(0);
  }
  Sum sum[kChannels];
#pragma unroll
  for (int k = 0; k < kChannels; ++k) sum[k] = 0;
  for (int i = 0; i < kSizeX; ++i) {
    const int sx = border_index(x + i - kRadiusX, width);
    const Policy::Tap q = general_taps_x[i];
#pragma unroll
    for (int k = 0; k < kChannels; ++k) {
      sum[k] = gb_arith::mac(sum[k], q, sx < 0 ? constant[k] : row[sx * kChannels + k]);
    }
  }
  Sample* dst = reinterpret_cast<Sample*>(out + static_cast<size_t>(y) * out_pitch) + x * kChannels;
  finish_pixel(sum, row_of<Sample>(in, in_pitch, y) + x * kChannels, dst);
}
