// hdr_codec.hpp — Radiance RGBE (.hdr) files, read and written by gpublur's own small codec
// (fuzzed by fuzz/fuzz_hdr.cpp; tests hold it to stb_image's samples). stb_image's own reader
// loops forever on some truncated files (CVE-2021-42715; Debian's stb 2.27 is unpatched).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "codecs/decoded_image.hpp"
#include "image/decode_limits.hpp"

namespace gpublur {

/// "#?RADIANCE" or "#?RGBE" files of FORMAT=32-bit_rle_rgbe in the standard orientation
/// (-Y height +X width), flat or run-length encoded scanlines, as floating-point RGB
/// (mantissa * 2^(exponent - 136), as stb_image decodes them). Checks the size against `limits`,
/// and that the data can hold the image, before allocating. Throws IoError saying why.
DecodedImage decode_hdr(const std::uint8_t* data, std::size_t size, const DecodeLimits& limits);

/// RGB (gray repeated, alpha dropped) as RGBE, scanlines run-length encoded where the width
/// allows (8 to 32767). Negative and non-finite values are written as 0.
std::vector<std::uint8_t> encode_hdr(const ImageF& image);

}  // namespace gpublur
