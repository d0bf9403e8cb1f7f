// bmp_codec.hpp — Windows BMP files, read and written by gpublur's own small codec (fuzzed by
// fuzz/fuzz_bmp.cpp; tests hold it to stb_image's samples).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "codecs/decoded_image.hpp"
#include "image/decode_limits.hpp"

namespace gpublur {

/// BITMAPCOREHEADER (OS/2) and BITMAPINFOHEADER to BITMAPV5HEADER files: 1, 4 and 8 bits with a
/// palette (RLE4 and RLE8 too), 16 bits (5-5-5, or bit fields), 24 bits, and 32 bits (bit fields
/// too), bottom-up or top-down. Alpha comes from a bit field's alpha mask, or from the fourth byte
/// of 32-bit pixels where some pixel's is not 0 (as stb_image reads them); RGB otherwise. Density
/// from the header. Checks the size against `limits`, and that uncompressed pixel data is in the
/// file, before allocating. Throws IoError saying why.
DecodedImage decode_bmp(const std::uint8_t* data, std::size_t size, const DecodeLimits& limits);

/// 24-bit BGR (gray expanded to it), or 32-bit BGRA with a BITMAPV4HEADER's alpha mask for 2 and 4
/// channels; bottom-up; density kept. Throws IoError for an image BMP cannot hold.
std::vector<std::uint8_t> encode_bmp(const Image& image, const Metadata& metadata = {});

}  // namespace gpublur
