// dp4a_geometry.cuh — the byte-weight matrix kernel's shapes (matrix_dp4a.cu), written once and
// compiled twice: by the host compiler for codegen, which chooses the kernel and the tile's height
// from them, and by NVRTC for the kernel, which lays its planes out by them. Plain constexpr C++.
//
// A matrix row of `size` weights is taken in chunks of four: chunk m starts at weight 4m, the last
// at size - 4 (before the row where size < 4), so that a thread's windows (four bytes from its
// quad's pixel c - radius + chunk start, c = 0..3) reach no further than the matrix does. A block's
// planes hold kTileW pixels and whole words of reach each side, (tile height + 2 ry) rows, a
// plane per channel.
#ifndef GB_DP4A_GEOMETRY_INCLUDED
#define GB_DP4A_GEOMETRY_INCLUDED 1
#ifndef GB_HOST_DEVICE_INCLUDED
#include "host_device.cuh"
#endif

namespace gb_dp4a {

constexpr int kTileW = 128;  // pixels a block across: a warp of quads
// The largest radius it takes on either axis: the largest dense matrix's (31x31).
constexpr int kMaxRadius = 15;
// The most chunk words (matrix rows x chunks a row x the weights' byte planes) whose loops are
// unrolled whole, each word an immediate: 15x15 of byte weights. The compiler's time grows with
// them, to many seconds at 31x31 (nvcc's, measured on the development machine:
// bench/RESULTS.md; NVRTC is the same compiler), so larger matrices take the tile's rows in a loop.
constexpr int kUnrolledChunkRows = 60;

GB_HD_CONSTEXPR int size_of(int radius) { return 2 * radius + 1; }
GB_HD_CONSTEXPR int chunks(int size) { return (size + 3) / 4; }
GB_HD_CONSTEXPR int chunk_start(int size, int m) { return m + 1 < chunks(size) ? 4 * m : size - 4; }
// Plane bytes a quad's windows reach before its first pixel and after it.
GB_HD_CONSTEXPR int reach_left(int radius) {
  return size_of(radius) < 4 ? radius + 4 - size_of(radius) : radius;
}
GB_HD_CONSTEXPR int reach_right(int radius) {
  return 3 - radius + chunk_start(size_of(radius), chunks(size_of(radius)) - 1) + 3;
}
GB_HD_CONSTEXPR int pad_left(int radius) { return (reach_left(radius) + 3) / 4 * 4; }
GB_HD_CONSTEXPR int pad_right(int radius) { return (reach_right(radius) - 3 + 3) / 4 * 4; }
GB_HD_CONSTEXPR int plane_words(int radius) {
  return (pad_left(radius) + kTileW + pad_right(radius)) / 4;
}
// A block's planes, in bytes.
GB_HD_CONSTEXPR int shared_bytes(int channels, int radius_x, int radius_y, int tile_h) {
  return channels * (tile_h + 2 * radius_y) * plane_words(radius_x) * 4;
}

}  // namespace gb_dp4a

#endif  // GB_DP4A_GEOMETRY_INCLUDED
