// stb_reference.cpp — the one translation unit compiling stb_image, for the tests.
#define STB_IMAGE_IMPLEMENTATION
#define STBI_NO_STDIO
#include <stb_image.h>

#include "support/stb_reference.hpp"

namespace gpublur::test {

std::optional<StbImage> stb_decode(const std::vector<std::uint8_t>& file, int desired) {
  const int size = static_cast<int>(file.size());
  StbImage out;
  int channels = 0;
  if (stbi_is_hdr_from_memory(file.data(), size)) {
    float* f =
        stbi_loadf_from_memory(file.data(), size, &out.width, &out.height, &channels, desired);
    if (!f) return std::nullopt;
    out.channels = desired ? desired : channels;
    out.bits = 32;
    out.samplesf.assign(f, f + static_cast<std::size_t>(out.width) * out.height * out.channels);
    stbi_image_free(f);
    return out;
  }
  if (stbi_is_16_bit_from_memory(file.data(), size)) {
    stbi_us* p =
        stbi_load_16_from_memory(file.data(), size, &out.width, &out.height, &channels, desired);
    if (!p) return std::nullopt;
    out.channels = desired ? desired : channels;
    out.bits = 16;
    out.samples16.assign(p, p + static_cast<std::size_t>(out.width) * out.height * out.channels);
    stbi_image_free(p);
    return out;
  }
  stbi_uc* p =
      stbi_load_from_memory(file.data(), size, &out.width, &out.height, &channels, desired);
  if (!p) return std::nullopt;
  out.channels = desired ? desired : channels;
  out.samples8.assign(p, p + static_cast<std::size_t>(out.width) * out.height * out.channels);
  stbi_image_free(p);
  return out;
}

}  // namespace gpublur::test
