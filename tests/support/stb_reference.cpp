// stb_reference.cpp — the one translation unit compiling stb_image, for the tests.
#define STB_IMAGE_IMPLEMENTATION
#define STBI_NO_STDIO
#include <stb_image.h>

#include "support/stb_reference.hpp"

namespace gpublur::test {
namespace {

// stb's `samples` (freed here) as a raster of their depth; nullopt where stb refused the file.
template <typename Sample>
std::optional<AnyImage> take(Sample* samples, int width, int height, int channels, int desired) {
  if (!samples) return std::nullopt;
  Raster<Sample> image{width, height, desired ? desired : channels, {}};
  image.pixels.assign(samples, samples + static_cast<std::size_t>(width) * height * image.channels);
  stbi_image_free(samples);
  return AnyImage(std::move(image));
}

}  // namespace

std::optional<AnyImage> stb_decode(const std::vector<std::uint8_t>& file, int desired) {
  const int size = static_cast<int>(file.size());
  int w = 0, h = 0, channels = 0;  // set by the load, so read only after it
  if (stbi_is_hdr_from_memory(file.data(), size)) {
    float* samples = stbi_loadf_from_memory(file.data(), size, &w, &h, &channels, desired);
    return take(samples, w, h, channels, desired);
  }
  if (stbi_is_16_bit_from_memory(file.data(), size)) {
    stbi_us* samples = stbi_load_16_from_memory(file.data(), size, &w, &h, &channels, desired);
    return take(samples, w, h, channels, desired);
  }
  stbi_uc* samples = stbi_load_from_memory(file.data(), size, &w, &h, &channels, desired);
  return take(samples, w, h, channels, desired);
}

}  // namespace gpublur::test
