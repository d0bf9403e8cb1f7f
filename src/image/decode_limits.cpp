// decode_limits.cpp — the size checks, with messages that say the numbers.
#include "image/decode_limits.hpp"

#include <cstdio>
#include <string>

#include "base/errors.hpp"
#include "image/image.hpp"

namespace gpublur {
namespace {

std::string megapixels(std::uint64_t pixels) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", static_cast<double>(pixels) / 1e6);
  return text;
}

}  // namespace

void check_image_size(std::int64_t width, std::int64_t height, const DecodeLimits& limits) {
  const std::string size = std::to_string(width) + "x" + std::to_string(height);
  if (width < 1 || height < 1) throw IoError("image of " + size + " pixels: no pixels");
  if (width > kMaxDimension || height > kMaxDimension) {
    throw IoError("image of " + size + " pixels: each side may be at most " +
                  std::to_string(kMaxDimension) + " pixels");
  }
  const auto pixels = static_cast<std::uint64_t>(width) * static_cast<std::uint64_t>(height);
  if (limits.max_pixels != 0 && pixels > limits.max_pixels) {
    throw IoError("image of " + size + " pixels (" + megapixels(pixels) +
                  " megapixels) is larger than the limit of " + megapixels(limits.max_pixels) +
                  " megapixels (--max-pixels " + std::to_string(limits.max_pixels) + ")");
  }
}

void check_data_holds(std::uint64_t available, std::uint64_t needed, const char* what) {
  if (available < needed) {
    throw IoError(std::string("truncated: the header promises ") + std::to_string(needed) +
                  " bytes of " + what + ", the file holds " + std::to_string(available));
  }
}

}  // namespace gpublur
