// stb_reference.hpp — test support: stb_image (Debian's libstb-dev) as a second, independent
// decoder that gpublur's own decoders (BMP, TGA, PNM, HDR, PSD) and lodepng's variants are held
// to, sample for sample. Test-only: gpublur itself does not link stb.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace gpublur::test {

/// What stb_image decodes: samples as it gives them (8-bit, 16-bit where it keeps 16, or float
/// for HDR), `desired` channels (0: the file's own).
struct StbImage {
  int width = 0, height = 0, channels = 0;
  int bits = 8;
  std::vector<std::uint8_t> samples8;
  std::vector<std::uint16_t> samples16;
  std::vector<float> samplesf;
};
std::optional<StbImage> stb_decode(const std::vector<std::uint8_t>& file, int desired = 0);

}  // namespace gpublur::test
