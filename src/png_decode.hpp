// png_decode.hpp — the common PNGs decoded by lodepng with libdeflate inflating: about twice as
// fast as stb_image, whose inflate is the slowest part of reading a large PNG.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "decoded_image.hpp"

namespace gpublur {

/// `file` decoded when it is a PNG of 8 or 16 bits per sample, gray, gray+alpha, RGB or RGBA,
/// not interlaced, without colour-key (tRNS) transparency: what cameras, editors and gpublur
/// itself write. nullopt for any other file, and for anything lodepng or libdeflate reject, so
/// that stb_image decodes it or says why it cannot. Samples come out exactly as stb_image gives
/// them (16-bit in host byte order). Chunk CRCs are not checked, as stb_image does not; the
/// image data's Adler-32 is.
std::optional<ReadImage> decode_png_directly(const std::vector<std::uint8_t>& file);

}  // namespace gpublur
