// decode_limits.hpp — what a decoder checks before it allocates pixels: the image's claimed size
// against gpublur's limits (--max-pixels and --max-bytes, and kMaxDimension per side), and, where a
// format makes it checkable, whether the file's data can hold what its header claims. A small file
// claiming a huge image (a decompression bomb) is refused in microseconds instead of taking
// gigabytes.
#pragma once

#include <cstdint>

namespace gpublur {

/// The default --max-pixels: 2^27 (134 megapixels, 11585 x 11585), ImageMagick's area policy on
/// Debian (128 MP) and below the 179 megapixels at which Pillow refuses an image.
constexpr std::uint64_t kDefaultMaxPixels = std::uint64_t{1} << 27;

/// The default --max-bytes: 1 GiB of decoded samples, e.g. 2^27 pixels of 8-bit RGBA (512 MiB)
/// or of 16-bit RGBA (1 GiB), 89 megapixels of HDR (3 floats a pixel). A run holds about twice
/// its decoded image at its peak (the image and the blurred image), so about 2 GiB at most.
constexpr std::uint64_t kDefaultMaxBytes = std::uint64_t{1} << 30;

struct DecodeLimits {
  std::uint64_t max_pixels = kDefaultMaxPixels;  // 0: only kMaxDimension per side
  std::uint64_t max_bytes = kDefaultMaxBytes;    // decoded samples; 0: no limit
};

/// The samples a decoder will make of an image: what --max-bytes counts.
struct DecodedSize {
  std::int64_t width = 0, height = 0;
  int channels = 1;          // as decoded (e.g. 3 for a palette without transparency)
  int bytes_per_sample = 1;  // 1, 2, or 4 (HDR's floats)
};

/// Throws IoError saying the numbers unless 1 <= width, height <= kMaxDimension,
/// width * height <= limits.max_pixels and its decoded bytes <= limits.max_bytes.
void check_image_size(const DecodedSize& size, const DecodeLimits& limits);

/// Throws IoError("truncated ...") when `available` bytes cannot hold the `needed` bytes the
/// header implies (`what` names them, e.g. "pixel data").
void check_data_holds(std::uint64_t available, std::uint64_t needed, const char* what);

}  // namespace gpublur
