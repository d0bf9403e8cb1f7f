// gif_decode.hpp — GIF files read by giflib (the reference GIF library, continuously fuzzed by
// OSS-Fuzz): the first frame, as it shows on the GIF's logical screen.
#pragma once

#include <cstddef>
#include <cstdint>

#include "codecs/decoded_image.hpp"
#include "image/decode_limits.hpp"

namespace gpublur {

/// The first frame drawn on the logical screen: RGB where it covers the screen with no
/// transparent colour, else RGBA (transparent where the frame does not draw). Checks the screen's
/// size against `limits` before allocating it. Throws IoError saying why.
DecodedImage decode_gif(const std::uint8_t* data, std::size_t size, const DecodeLimits& limits);

}  // namespace gpublur
