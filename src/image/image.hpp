// image.hpp — images with interleaved channels, rows packed without padding: 8-bit (Image),
// 16-bit (Image16) and floating-point (ImageF) samples, and their SampleFormat. Any of the three
// as one value: any_image.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "base/checked_math.hpp"
#include "base/large_buffer.hpp"

namespace gpublur {

/// Largest width or height gpublur accepts; checked before any allocation, host or device.
/// 65535 keeps every row byte count (width * 4) and the GPU grid well inside 32-bit ranges.
constexpr int kMaxDimension = 65535;

template <typename Sample>
struct Raster {
  using SampleType = Sample;
  int width = 0;
  int height = 0;
  int channels = 0;            // 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA
  std::vector<Sample> pixels;  // height rows of width * channels samples

  std::size_t row_samples() const {
    return checked_mul(static_cast<std::size_t>(width), static_cast<std::size_t>(channels));
  }
  std::size_t row_bytes() const { return checked_mul(row_samples(), sizeof(Sample)); }
  std::size_t byte_count() const {
    return checked_mul(row_bytes(), static_cast<std::size_t>(height));
  }
};

using Image = Raster<std::uint8_t>;
using Image16 = Raster<std::uint16_t>;
using ImageF = Raster<float>;  // HDR: linear light, unbounded

/// The samples of a raster, and so of the kernel that blurs it: 8-bit (Image), 16-bit (Image16),
/// floating-point (ImageF).
enum class SampleFormat { k8, k16, kFloat };

template <typename Sample>
constexpr SampleFormat sample_format_of() {
  static_assert(std::is_same_v<Sample, std::uint8_t> || std::is_same_v<Sample, std::uint16_t> ||
                    std::is_same_v<Sample, float>,
                "8-bit, 16-bit or float samples");
  if constexpr (std::is_same_v<Sample, float>) return SampleFormat::kFloat;
  return sizeof(Sample) == 1 ? SampleFormat::k8 : SampleFormat::k16;
}

/// Bytes a sample of `format` takes: 1, 2 or 4.
constexpr std::size_t sample_bytes(SampleFormat format) {
  return format == SampleFormat::k8 ? 1 : format == SampleFormat::k16 ? 2 : 4;
}

/// Throws IoError unless 1 <= width, height <= kMaxDimension and 1 <= channels <= 4.
void check_shape(int width, int height, int channels);

/// A zero-filled image of the given shape; throws IoError on bad or oversized shapes.
template <typename Sample>
Raster<Sample> make_raster(int width, int height, int channels) {
  check_shape(width, height, channels);
  Raster<Sample> image;
  image.width = width;
  image.height = height;
  image.channels = channels;
  const std::size_t count = checked_mul(image.row_samples(), static_cast<std::size_t>(height));
  reserve_large(image.pixels, count);
  image.pixels.assign(count, 0);
  return image;
}

/// An image of the given shape holding a copy of `samples` (row_samples * height of them),
/// copied once, without zero-filling first; throws IoError on bad or oversized shapes.
template <typename Sample>
Raster<Sample> make_raster_from(const Sample* samples, int width, int height, int channels) {
  check_shape(width, height, channels);
  Raster<Sample> image;
  image.width = width;
  image.height = height;
  image.channels = channels;
  const std::size_t count = checked_mul(image.row_samples(), static_cast<std::size_t>(height));
  reserve_large(image.pixels, count);
  image.pixels.assign(samples, samples + count);
  return image;
}

/// Whether an image with alpha (2 or 4 channels, alpha last) has a pixel that is not fully
/// opaque. Integer samples only (opaque is the type's maximum).
template <typename Sample>
bool has_transparency(const Raster<Sample>& image) {
  static_assert(std::numeric_limits<Sample>::is_integer, "alpha is opaque at the integer maximum");
  if (image.channels != 2 && image.channels != 4) return false;
  const auto c = static_cast<std::size_t>(image.channels);
  for (std::size_t i = c - 1; i < image.pixels.size(); i += c) {
    if (image.pixels[i] != std::numeric_limits<Sample>::max()) return true;
  }
  return false;
}

inline Image make_image(int width, int height, int channels) {
  return make_raster<std::uint8_t>(width, height, channels);
}

}  // namespace gpublur
