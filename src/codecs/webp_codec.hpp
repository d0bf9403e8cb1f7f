// webp_codec.hpp — WebP files read and written by libwebp (Google's codec, continuously fuzzed by
// OSS-Fuzz), with libwebpmux and libwebpdemux carrying the ICC profile, EXIF and XMP chunks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "codecs/decoded_image.hpp"
#include "image/decode_limits.hpp"

namespace gpublur {

/// Lossy and lossless still WebP, as RGB, or RGBA where the file has alpha; ICC profile, EXIF and
/// XMP come along. An animated WebP is an IoError (which frame would be meant?). Checks the size
/// against `limits` before decoding. Throws IoError saying why.
DecodedImage decode_webp(const std::uint8_t* data, std::size_t size, const DecodeLimits& limits);

/// Lossy at `quality` (1..100), or lossless; WebP holds no gray, so gray images are written as
/// RGB (gray+alpha as RGBA). Throws IoError.
std::vector<std::uint8_t> encode_webp(const Image& input, int quality, bool lossless,
                                      const Metadata& metadata = {});

}  // namespace gpublur
