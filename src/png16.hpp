// png16.hpp — writing 16-bit PNG with libpng: stb_image_write only writes 8 bits per sample.
#pragma once

#include <cstdint>
#include <vector>

#include "image.hpp"

namespace gpublur {

/// `image` as a 16-bit PNG (1-4 channels: gray, gray+alpha, RGB, RGBA), zlib `level` 0..9.
/// Throws IoError with libpng's message on failure.
std::vector<std::uint8_t> encode_png16(const Image16& image, int level);

}  // namespace gpublur
