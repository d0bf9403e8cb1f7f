// png_deflate.hpp — the zlib stream inside PNG files, compressed with libdeflate instead of
// stb_image_write's built-in deflate (several times faster, and smaller files).
#pragma once

namespace gpublur {

/// Lowest and highest --png-level (libdeflate's levels; 0 stores without compression).
constexpr int kMinPngLevel = 0;
constexpr int kMaxPngLevel = 12;

/// stb_image_write's STBIW_ZLIB_COMPRESS hook: compresses `data` as a zlib stream at libdeflate
/// level `level`; returns a malloc'd buffer (stb frees it) and its size in *out_len, or nullptr
/// on failure. Thread-safe.
unsigned char* zlib_compress_for_png(unsigned char* data, int data_len, int* out_len, int level);

}  // namespace gpublur
