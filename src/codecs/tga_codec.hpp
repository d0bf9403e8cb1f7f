// tga_codec.hpp — Truevision TGA files, read and written by gpublur's own small codec (fuzzed by
// fuzz/fuzz_tga.cpp; tests hold it to stb_image's samples).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "codecs/decoded_image.hpp"
#include "image/decode_limits.hpp"

namespace gpublur {

/// Colour-mapped, true-colour and gray images, uncompressed or run-length encoded: 8-bit gray
/// (16: gray+alpha), 15/16-bit 5-5-5 RGB, 24-bit RGB, 32-bit RGBA (RGB when the header gives no
/// alpha bits and every alpha byte is 0), colour maps of those entries. Either origin. Checks the
/// size against `limits`, and that the data can hold the image, before allocating. Throws IoError.
DecodedImage decode_tga(const std::uint8_t* data, std::size_t size, const DecodeLimits& limits);

/// Run-length encoded: gray (8 bits), gray+alpha (16), RGB (24), RGBA (32); top row first.
std::vector<std::uint8_t> encode_tga(const Image& image);

}  // namespace gpublur
