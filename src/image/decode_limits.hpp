// decode_limits.hpp — what a decoder checks before it allocates pixels: the image's claimed size
// against gpublur's limits (--max-pixels, and kMaxDimension per side), and, where a format makes it
// checkable, whether the file's data can hold what its header claims. A small file claiming a huge
// image (a decompression bomb) is refused in microseconds instead of taking gigabytes.
#pragma once

#include <cstdint>

namespace gpublur {

/// The default --max-pixels: 2^28 (16384 x 16384, 268 megapixels), about a gigabyte of 8-bit
/// RGBA; in the spirit of ImageMagick's area policy and Pillow's MAX_IMAGE_PIXELS (179 MP).
constexpr std::uint64_t kDefaultMaxPixels = std::uint64_t{1} << 28;

struct DecodeLimits {
  std::uint64_t max_pixels = kDefaultMaxPixels;  // 0: only kMaxDimension per side
};

/// Throws IoError saying the numbers unless 1 <= width, height <= kMaxDimension and
/// width * height <= limits.max_pixels.
void check_image_size(std::int64_t width, std::int64_t height, const DecodeLimits& limits);

/// Throws IoError("truncated ...") when `available` bytes cannot hold the `needed` bytes the
/// header implies (`what` names them, e.g. "pixel data").
void check_data_holds(std::uint64_t available, std::uint64_t needed, const char* what);

}  // namespace gpublur
