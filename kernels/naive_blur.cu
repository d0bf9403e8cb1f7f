// naive_blur.cu — the seed pipeline's approach, kept as the baseline for bench/ and tests: one
// thread per output byte, the whole 2-D window read straight from global memory with the border
// applied to every access. Same arithmetic, so the same bytes as every other path; (2r+1)^2
// loads per output instead of about 2.
#ifndef GB_COMMON_INCLUDED
#include "common.cuh"
#endif

#ifndef GB_BLOCK_THREADS
#define GB_BLOCK_THREADS 256
#endif

extern "C" __global__ void __launch_bounds__(GB_BLOCK_THREADS)
    gb_blur_kernel(const unsigned char* __restrict__ in, int in_pitch, unsigned char* __restrict__ out,
                   int out_pitch, int width, int height) {
  using namespace gb;
  in = layer_image(in, in_pitch, height);  // this block's image of a stack
  out = layer_image(out, out_pitch, height);
  const int row_bytes = width * kChannels;
  const int xb = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y;
  if (xb >= row_bytes) return;
  unsigned b = kHorizontalRound;
  for (int i = 0; i < kSizeX; ++i) {
    const int x = xb + (i - kRadiusX) * kChannels;
    unsigned a = 0;
    for (int j = 0; j < kSizeY; ++j) {
      a += taps_y[j] * load_sample(in, in_pitch, x, y + j - kRadiusY, width, height);
    }
    b += taps_x[i] * ((a + kVerticalRound) >> kVerticalShift);
  }
  out[static_cast<size_t>(y) * out_pitch + xb] = static_cast<unsigned char>(b >> kHorizontalShift);
}
