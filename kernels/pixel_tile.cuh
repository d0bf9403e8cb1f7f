// pixel_tile.cuh — a block's tile of input pixels in shared memory with the filter's reach around
// it, the border applied once per pixel: what matrix_dense.cu and separable_tile.cu compute from.
// Tile pixel (tx, ty), image pixel (x0 + tx - rx, y0 + ty - ry), is at sample
//   lead + ty * kRowSamples + tx * kChannels
// where lead is what load_pixel_tile returns. A block whose tile lies wholly inside the image (of
// 16-byte aligned rows) copies each row in 16-byte pieces from the 16-byte boundary at or before
// its first byte, one piece a thread, and lead is that byte's place in its piece: a few wide
// loads instead of one load and one border rule per sample. The others, at the image's edges,
// copy pixel by pixel through the border rule, with lead 0.
// Blocks of GB_BLOCK_THREADS threads; needs common.cuh.
#ifndef GB_PIXEL_TILE_INCLUDED
#define GB_PIXEL_TILE_INCLUDED 1
#ifndef GB_COMMON_INCLUDED
#include "common.cuh"
#endif
#ifndef GB_TILE_ROWS_INCLUDED
#include "tile_rows.cuh"
#endif

namespace gb {

// The tile of a block of a kernel of Sample samples (kChannels a pixel), kLoadW x kLoadH pixels.
template <typename Sample, int kLoadW, int kLoadH>
struct PixelTile {
  static constexpr int kPixelBytes = kChannels * static_cast<int>(sizeof(Sample));
  static constexpr int kRowBytes = gb_tile::row_bytes(kLoadW, kPixelBytes);
  static constexpr int kRowSamples = kRowBytes / static_cast<int>(sizeof(Sample));
  static constexpr int kSamples = kLoadH * kRowSamples;

  // Fills `tile` (kSamples, 16-byte aligned) for the block whose outputs start at pixel (x0,
  // y0); returns the lead, in samples. `border_pixel`: the constant border's pixel. kPieces:
  // whether a block inside the image copies 16-byte pieces (else every block copies pixels).
  template <bool kPieces>
  static __device__ __forceinline__ int load(Sample* tile, const Sample* border_pixel,
                                             const unsigned char* __restrict__ in, int pitch,
                                             int x0, int y0, int width, int height) {
    const int px = x0 - kRadiusX, py = y0 - kRadiusY;  // the tile's first pixel
    const bool aligned = ((reinterpret_cast<size_t>(in) | static_cast<size_t>(pitch)) & 15) == 0;
    if (kPieces && aligned && px >= 0 && py >= 0 && px + kLoadW <= width && py + kLoadH <= height) {
      const int first = px * kPixelBytes;
      const int from = first & ~15;
      const int lead = first - from;
      const int pieces = (lead + kLoadW * kPixelBytes + 15) >> 4;  // <= kRowBytes / 16
      constexpr int kRowPieces = kRowBytes / 16;
      const unsigned char* src = in + static_cast<size_t>(py) * pitch + from;
      for (int n = threadIdx.x; n < kLoadH * kRowPieces; n += GB_BLOCK_THREADS) {
        const int r = n / kRowPieces;
        const int c = n - r * kRowPieces;
        if (c < pieces) {
          *reinterpret_cast<uint4*>(reinterpret_cast<unsigned char*>(tile) + r * kRowBytes +
                                    16 * c) =
              *reinterpret_cast<const uint4*>(src + static_cast<size_t>(r) * pitch + 16 * c);
        }
      }
      return lead / static_cast<int>(sizeof(Sample));
    }
    for (int n = threadIdx.x; n < kLoadW * kLoadH; n += GB_BLOCK_THREADS) {
      const int ty = n / kLoadW;
      const int tx = n - ty * kLoadW;
      const int sy = border_index(py + ty, height);
      const int sx = border_index(px + tx, width);
      const Sample* pixel =
          (sy < 0 || sx < 0)
              ? border_pixel
              : reinterpret_cast<const Sample*>(in + static_cast<size_t>(sy) * pitch) +
                    sx * kChannels;
#pragma unroll
      for (int k = 0; k < kChannels; ++k) tile[ty * kRowSamples + tx * kChannels + k] = pixel[k];
    }
    return 0;
  }
};

}  // namespace gb

#endif  // GB_PIXEL_TILE_INCLUDED
