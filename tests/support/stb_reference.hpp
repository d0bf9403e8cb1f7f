// stb_reference.hpp — test support: stb_image (Debian's libstb-dev) as a second, independent
// decoder that gpublur's own decoders (BMP, TGA, PNM, HDR, PSD) and lodepng's variants are held
// to, sample for sample. Test-only: gpublur itself does not link stb.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "image/any_image.hpp"

namespace gpublur::test {

/// What stb_image decodes: samples as it gives them (8-bit, 16-bit where it keeps 16, or float
/// for HDR), `desired` channels (0: the file's own); nullopt where it refuses the file.
std::optional<AnyImage> stb_decode(const std::vector<std::uint8_t>& file, int desired = 0);

}  // namespace gpublur::test
