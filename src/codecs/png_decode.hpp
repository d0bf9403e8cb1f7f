// png_decode.hpp — PNG files read by lodepng (a PNG codec continuously fuzzed by OSS-Fuzz) with
// libdeflate inflating the image data: faster than zlib's inflate, the slowest part of reading a
// large PNG.
#pragma once

#include <cstddef>
#include <cstdint>

#include "codecs/decoded_image.hpp"
#include "image/decode_limits.hpp"

namespace gpublur {

/// Every PNG variant: gray, gray+alpha, RGB, RGBA and palette, 1 to 16 bits, interlaced or not.
/// Samples come out as the file stores them, 8 or 16 bits (16 when the file has 16): bit depths
/// below 8 are scaled to 8 bits (v * 255 / (2^bits - 1)), a palette becomes RGB (RGBA where its
/// tRNS gives alpha), and a colour key (tRNS) on gray or RGB becomes an alpha channel. The ICC
/// profile (iCCP), EXIF (eXIf), XMP (iTXt XML:com.adobe.xmp) and density (pHYs) come along. Checks
/// the size against `limits`, and that the compressed data can hold the image (deflate expands at
/// most 1032:1), before any pixel buffer is allocated. Chunk CRCs are not checked (as libpng's
/// readers commonly do not for ancillary chunks); the image data's Adler-32 is. Throws IoError
/// saying why.
DecodedImage decode_png(const std::uint8_t* data, std::size_t size, const DecodeLimits& limits);

}  // namespace gpublur
