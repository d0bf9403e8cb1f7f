// common.cuh — what every blur kernel shares: the generated parameters (with defaults so each
// .cu file also compiles on its own), the taps, border index maps and border-aware byte loads.
// codegen emits: prelude, this file, then one kernel file.
//
// Arithmetic (src/weights.hpp, identical in src/cpu_blur.cpp): taps per axis sum to 2^16;
//   vertical   a = sum_j qy_j * p          < 2^24, m = (a + 2^7) >> 8  (16 bits, 8 fractional)
//   horizontal b = sum_i qx_i * m          < 2^32, out = (b + 2^23) >> 24
// An interleaved row of C channels is treated as one byte row whose horizontal taps are C apart.
// Images are pitched: row y starts at y * pitch bytes; pitch is a multiple of 16.

#define GB_COMMON_INCLUDED 1

#ifndef GB_CHANNELS
#define GB_CHANNELS 3
#define GB_RADIUS_X 1
#define GB_RADIUS_Y 1
#define GB_TAPS_X {16384u, 32768u, 16384u}
#define GB_TAPS_Y {16384u, 32768u, 16384u}
#define GB_BORDER 0
#define GB_BORDER_VALUE {0u, 0u, 0u, 0u}
#endif

#ifndef GB_BORDER_INCLUDED
#include "border.cuh"
#endif

namespace gb {

constexpr int kChannels = GB_CHANNELS;
constexpr int kRadiusX = GB_RADIUS_X;
constexpr int kRadiusY = GB_RADIUS_Y;
constexpr int kSizeX = 2 * kRadiusX + 1;
constexpr int kSizeY = 2 * kRadiusY + 1;

#ifndef GB_POLICY  // blur_general.cu declares its own taps, of its policy's type
// The taps' type: the Gaussian's are unsigned (2^16 in all); a convolution matrix's on the
// tensor-core kernel (GB_EXACT_SUMS, mma_layout.cuh) are signed integers of 16 bits.
#ifdef GB_EXACT_SUMS
typedef int Tap;
#else
typedef unsigned Tap;
#endif
// Compile-time taps: in unrolled loops the index is a constant and the tap an immediate.
__host__ __device__ constexpr Tap tap_x(int i) {
  constexpr Tap taps[kSizeX] = GB_TAPS_X;
  return taps[i];
}
__host__ __device__ constexpr Tap tap_y(int i) {
  constexpr Tap taps[kSizeY] = GB_TAPS_Y;
  return taps[i];
}
// The same in constant memory, for loops too long to unroll (indexed at run time).
__constant__ Tap taps_x[kSizeX] = GB_TAPS_X;
__constant__ Tap taps_y[kSizeY] = GB_TAPS_Y;
#endif
__constant__ unsigned border_value[4] = GB_BORDER_VALUE;

// A stack of images of one shape, each `height` rows of `pitch` bytes, one after another (a
// batch, as video frames or a tensor's images lie in memory): the grid's layer blockIdx.z blurs
// image blockIdx.z. One image: layer 0, no offset. A planar blur's layers are its planes, plane
// p of image i at layer p * images + i (planes.cu splits the stack as one tall image).
template <typename T>
__device__ __forceinline__ T* layer_image(T* image, int pitch, int height) {
  return image + static_cast<size_t>(blockIdx.z) * pitch * height;
}

// The constant border's value for a byte of channel `channel`; in a planar blur (GB_PLANES,
// planes.cu) every byte is of the channel its plane holds: the grid holds GB_PLANES planes of
// gridDim.z / GB_PLANES images each (layer_image).
__device__ __forceinline__ unsigned constant_border(int channel) {
#ifdef GB_PLANES
  return border_value[blockIdx.z / (gridDim.z / GB_PLANES)];
#else
  return border_value[channel];
#endif
}

constexpr unsigned kVerticalRound = 1u << 7;
constexpr int kVerticalShift = 8;
constexpr unsigned kHorizontalRound = 1u << 23;
constexpr int kHorizontalShift = 24;

__device__ __forceinline__ int floor_div(int i, int n) { return i >= 0 ? i / n : -((-i + n - 1) / n); }

// The border rule (border.cuh) for this kernel's mode: the in-image index that i reads, or -1 for
// the constant. (GB_BORDER itself, not a constexpr copy: NVRTC would emit that as a global.)
__device__ __forceinline__ int border_index(int i, int n) {
  return gb_border::index<GB_BORDER>(i, n);
}

// Byte column xb of an interleaved row, possibly outside [0, width * C): the in-image byte
// column it reads, or -1 for the constant border. `channel` receives xb's channel.
__device__ __forceinline__ int source_column(int xb, int width, int& channel) {
  const int px = floor_div(xb, kChannels);
  channel = xb - px * kChannels;
  const int sx = border_index(px, width);
  return sx < 0 ? -1 : sx * kChannels + channel;
}

constexpr bool kConstantBorder = GB_BORDER == gb_border::kConstant;

// Sample at (byte column xb, row y), both possibly outside the image, with the border applied.
__device__ __forceinline__ unsigned load_sample(const unsigned char* __restrict__ in, int pitch, int xb,
                                                int y, int width, int height) {
  int channel;
  const int sx = source_column(xb, width, channel);
  const int sy = border_index(y, height);
  if (sx < 0 || sy < 0) return constant_border(channel);
  return __ldg(in + static_cast<size_t>(sy) * pitch + sx);
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
    c.constant[k] = constant_border(channel);
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

}  // namespace gb
