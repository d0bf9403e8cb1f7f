// tile_rows.cuh — the length of a row of a block's pixel tile in shared memory (pixel_tile.cuh),
// written once for the kernels and for codegen, which sizes the tile to fit: the row's pixels and
// up to 15 bytes before them (a block inside the image copies its rows in 16-byte pieces from the
// 16-byte boundary at or before the row's first byte), in whole pieces. Plain C++, no headers.
#ifndef GB_TILE_ROWS_INCLUDED
#define GB_TILE_ROWS_INCLUDED 1
#ifndef GB_HOST_DEVICE_INCLUDED
#include "host_device.cuh"
#endif

namespace gb_tile {

GB_HD_CONSTEXPR int row_bytes(int pixels, int pixel_bytes) {
  return (15 + pixels * pixel_bytes + 15) / 16 * 16;
}

}  // namespace gb_tile

#endif  // GB_TILE_ROWS_INCLUDED
