// png_deflate.hpp — the filtered, deflated image data inside PNG files, made on all cores.
// stb_image_write keeps the PNG chunks; it hands over the unfiltered rows (filter forced to
// None), and this file applies the Paeth filter and deflates, band by band in parallel: each
// band is compressed independently by zlib and ends in a sync flush, so the bands concatenate
// into one valid deflate stream (the technique of pigz).
#pragma once

#include <cstddef>

namespace gpublur {

/// Lowest and highest --png-level (zlib's levels; 0 stores without compression).
constexpr int kMinPngLevel = 0;
constexpr int kMaxPngLevel = 9;

/// The row layout of the image being encoded on this thread; while one is set, the hook Paeth-
/// filters the rows it receives. Set it around a stbi_write_png call with filter 0 forced.
class ScopedPngRows {
 public:
  ScopedPngRows(std::size_t row_bytes, int bytes_per_pixel);
  ~ScopedPngRows();
  ScopedPngRows(const ScopedPngRows&) = delete;
  ScopedPngRows& operator=(const ScopedPngRows&) = delete;
};

/// stb_image_write's STBIW_ZLIB_COMPRESS hook: `data` (rows, each a filter byte then pixels) as
/// a zlib stream at `level`; returns a malloc'd buffer (stb frees it) and its size in *out_len,
/// or nullptr on failure. Thread-safe.
unsigned char* zlib_compress_for_png(unsigned char* data, int data_len, int* out_len, int level);

}  // namespace gpublur
