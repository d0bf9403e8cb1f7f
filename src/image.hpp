// image.hpp — an 8-bit image with interleaved channels, rows packed without padding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "checked_math.hpp"

namespace gpublur {

/// Largest width or height gpublur accepts; checked before any allocation, host or device.
/// 65535 keeps every row byte count (width * 4) and the GPU grid well inside 32-bit ranges.
constexpr int kMaxDimension = 65535;

struct Image {
  int width = 0;
  int height = 0;
  int channels = 0;                  // 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA
  std::vector<std::uint8_t> pixels;  // height rows of width * channels bytes

  std::size_t row_bytes() const {
    return checked_mul(static_cast<std::size_t>(width), static_cast<std::size_t>(channels));
  }
  std::size_t byte_count() const {
    return checked_mul(row_bytes(), static_cast<std::size_t>(height));
  }
};

/// An image of the given shape, zero-filled. Throws IoError on bad or oversized shapes.
Image make_image(int width, int height, int channels);

}  // namespace gpublur
