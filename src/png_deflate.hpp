// png_deflate.hpp — the zlib stream inside PNG files, compressed in parallel: the filtered
// image is cut into bands that zlib compresses independently on all cores, each ending in a
// sync flush, so their concatenation is one valid deflate stream (the technique of pigz).
#pragma once

namespace gpublur {

/// Lowest and highest --png-level (zlib's levels; 0 stores without compression).
constexpr int kMinPngLevel = 0;
constexpr int kMaxPngLevel = 9;

/// stb_image_write's STBIW_ZLIB_COMPRESS hook: `data` as a zlib stream at `level`; returns a
/// malloc'd buffer (stb frees it) and its size in *out_len, or nullptr on failure. Thread-safe.
unsigned char* zlib_compress_for_png(unsigned char* data, int data_len, int* out_len, int level);

}  // namespace gpublur
