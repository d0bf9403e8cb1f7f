// decode_limits.cpp — the size checks, with messages that say the numbers.
#include "image/decode_limits.hpp"

#include <cstdio>
#include <string>

#include "base/errors.hpp"
#include "image/image.hpp"

namespace gpublur {
namespace {

std::string one_decimal(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", value);
  return text;
}

std::string megapixels(std::uint64_t pixels) {
  return one_decimal(static_cast<double>(pixels) / 1e6) + " megapixels";
}

std::string mebibytes(std::uint64_t bytes) {
  return one_decimal(static_cast<double>(bytes) / (1 << 20)) + " MiB";
}

}  // namespace

void check_image_size(const DecodedSize& s, const DecodeLimits& limits) {
  const std::string size = std::to_string(s.width) + "x" + std::to_string(s.height);
  if (s.width < 1 || s.height < 1) throw IoError("image of " + size + " pixels: no pixels");
  if (s.width > kMaxDimension || s.height > kMaxDimension) {
    throw IoError("image of " + size + " pixels: each side may be at most " +
                  std::to_string(kMaxDimension) + " pixels");
  }
  const auto pixels = static_cast<std::uint64_t>(s.width) * static_cast<std::uint64_t>(s.height);
  if (limits.max_pixels != 0 && pixels > limits.max_pixels) {
    throw IoError("image of " + size + " pixels (" + megapixels(pixels) +
                  ") is larger than the limit of " + megapixels(limits.max_pixels) +
                  " (--max-pixels " + std::to_string(limits.max_pixels) + ")");
  }
  // At most 2^32 pixels of at most 4 x 4 bytes: no overflow.
  const std::uint64_t bytes = pixels * static_cast<std::uint64_t>(s.channels) *
                              static_cast<std::uint64_t>(s.bytes_per_sample);
  if (limits.max_bytes != 0 && bytes > limits.max_bytes) {
    throw IoError("image of " + size + " pixels, " + std::to_string(s.channels) + " channels of " +
                  std::to_string(8 * s.bytes_per_sample) + " bits, takes " + mebibytes(bytes) +
                  " decoded, more than the limit of " + mebibytes(limits.max_bytes) +
                  " (--max-bytes " + std::to_string(limits.max_bytes) + ")");
  }
}

void check_data_holds(std::uint64_t available, std::uint64_t needed, const char* what) {
  if (available < needed) {
    throw IoError(std::string("truncated: the header promises ") + std::to_string(needed) +
                  " bytes of " + what + ", the file holds " + std::to_string(available));
  }
}

}  // namespace gpublur
