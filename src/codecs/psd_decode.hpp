// psd_decode.hpp — Photoshop (.psd) files' composite image, read by gpublur's own small decoder
// (fuzzed by fuzz/fuzz_psd.cpp; tests hold it to stb_image's samples).
#pragma once

#include <cstddef>
#include <cstdint>

#include "codecs/decoded_image.hpp"
#include "image/decode_limits.hpp"

namespace gpublur {

/// The merged image Photoshop stores beside the layers: gray or RGB, 8 or 16 bits, raw or
/// PackBits-compressed; the first extra channel as alpha (gray+alpha, RGBA), with Photoshop's white
/// matte taken out of the colours as stb_image does. The ICC profile and XMP come along. Checks the
/// size against `limits`, and that the data can hold the image, before allocating. Throws IoError.
DecodedImage decode_psd(const std::uint8_t* data, std::size_t size, const DecodeLimits& limits);

}  // namespace gpublur
