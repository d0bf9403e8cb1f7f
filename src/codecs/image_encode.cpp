// image_encode.cpp — the encoder of the format's row (codec_registry.hpp), conversions, atomic
// writes.
#include "codecs/image_encode.hpp"

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "base/atomic_file.hpp"
#include "base/errors.hpp"
#include "base/large_buffer.hpp"
#include "codecs/codec_registry.hpp"
#include "codecs/exif_tiff.hpp"
#include "codecs/jpeg_markers.hpp"

namespace gpublur {
namespace {

ImageFormat format_of_path(const std::string& path) {
  const std::optional<ImageFormat> format = format_for_path(path);
  if (!format || !format_traits(*format).writable) {
    throw UsageError("cannot write '" + path + "': unknown extension; use " +
                     writable_extensions());
  }
  return *format;
}

// Why `codec` has no encoder for samples of `Sample`.
template <typename Sample>
[[noreturn]] void cannot_encode(const Codec& codec) {
  const std::string name(codec.name);
  if constexpr (std::is_same_v<Sample, std::uint8_t>) {
    if (!codec.traits.writable) {
      throw UsageError("gpublur does not write " + name + "; use " + writable_extensions());
    }
    const std::string label(codec.label);
    throw UsageError("an 8-bit image cannot be written as " +
                     std::string(default_extension(codec.format)) + "; " + label +
                     " output needs " + label + " input");
  } else if constexpr (std::is_same_v<Sample, std::uint16_t>) {
    throw UsageError(name + " cannot hold 16-bit samples; use " +
                     extensions_where(&FormatTraits::sixteen_bit) + ", or convert to 8 bits");
  } else {
    throw UsageError(name + " cannot hold floating-point samples; use " +
                     extensions_where(&FormatTraits::floating_point));
  }
}

template <typename Sample>
std::vector<std::uint8_t> encode_any(const Raster<Sample>& image, ImageFormat format,
                                     const EncodeOptions& options, const Metadata& metadata) {
  const Codec& codec = codec_of(format);
  const auto encode = codec.encoder<Sample>().encode;
  if (!encode) cannot_encode<Sample>(codec);
  return encode(image, options, metadata);
}

}  // namespace

std::vector<std::uint8_t> encode_image(const Image& image, ImageFormat format,
                                       const EncodeOptions& options, const Metadata& metadata) {
  return encode_any(image, format, options, metadata);
}

std::vector<std::uint8_t> encode_image(const Image16& image, ImageFormat format,
                                       const EncodeOptions& options, const Metadata& metadata) {
  return encode_any(image, format, options, metadata);
}

std::vector<std::uint8_t> encode_image(const ImageF& image, ImageFormat format,
                                       const EncodeOptions& options, const Metadata& metadata) {
  return encode_any(image, format, options, metadata);
}

std::vector<std::uint8_t> encode_image(const AnyImage& image, ImageFormat format,
                                       const EncodeOptions& options, const Metadata& metadata) {
  return image.visit(
      [&](const auto& raster) { return encode_image(raster, format, options, metadata); });
}

template <typename Sample>
std::vector<std::uint8_t> encode_image_consuming(Raster<Sample>&& image, ImageFormat format,
                                                 const EncodeOptions& options,
                                                 const Metadata& metadata) {
  if (const auto consume = codec_of(format).encoder<Sample>().consume) {
    return consume(std::move(image), options, metadata);
  }
  std::vector<std::uint8_t> bytes = encode_image(image, format, options, metadata);
  recycle_large(std::move(image.pixels));  // for the next image, where a batch keeps them
  image = Raster<Sample>{};
  return bytes;
}

template <typename Sample>
std::vector<std::uint8_t> encode_for_path(const Raster<Sample>& image, const std::string& path,
                                          const EncodeOptions& options, const Metadata& metadata) {
  return encode_image(image, format_of_path(path), options, metadata);
}

template <typename Sample>
void write_image(const Raster<Sample>& image, const std::string& path, const EncodeOptions& options,
                 const Metadata& metadata) {
  write_file_atomically(path, encode_for_path(image, path, options, metadata),
                        Durability::kRenamed);
}

std::vector<std::uint8_t> encode_image_consuming(AnyImage&& image, ImageFormat format,
                                                 const EncodeOptions& options,
                                                 const Metadata& metadata) {
  return image.visit([&](auto& raster) {
    return encode_image_consuming(std::move(raster), format, options, metadata);
  });
}

#define GPUBLUR_INSTANTIATE(Sample)                                                             \
  template std::vector<std::uint8_t> encode_image_consuming(                                    \
      Raster<Sample>&&, ImageFormat, const EncodeOptions&, const Metadata&);                    \
  template std::vector<std::uint8_t> encode_for_path(const Raster<Sample>&, const std::string&, \
                                                     const EncodeOptions&, const Metadata&);    \
  template void write_image(const Raster<Sample>&, const std::string&, const EncodeOptions&,    \
                            const Metadata&);
GPUBLUR_INSTANTIATE(std::uint8_t)
GPUBLUR_INSTANTIATE(std::uint16_t)
GPUBLUR_INSTANTIATE(float)
#undef GPUBLUR_INSTANTIATE

std::vector<std::string> metadata_not_kept(const Metadata& metadata, ImageFormat format) {
  const FormatTraits t = format_traits(format);
  const std::string cannot = " not kept: " + std::string(format_name(format)) + " cannot hold it";
  std::vector<std::string> lost;
  if (!metadata.icc.empty() && !t.icc) lost.push_back("ICC profile" + cannot);
  if (metadata.icc.size() > kMaxIccBytes && t.icc) {
    lost.push_back("ICC profile not kept: " + std::to_string(metadata.icc.size()) +
                   " bytes, more than the " + std::to_string(kMaxIccBytes) +
                   " a JPEG holds, the most gpublur carries");
  }
  if (!metadata.exif.empty() && !t.exif) lost.push_back("EXIF" + cannot);
  if (metadata.exif.size() > 65527 && format == ImageFormat::kJpeg) {
    lost.emplace_back("EXIF not kept: longer than a JPEG APP1 segment holds");
  }
  if (!metadata.exif.empty() && format == ImageFormat::kTiff) {
    for (const std::string& part : what_tiff_drops(metadata.exif)) lost.push_back(part + cannot);
  }
  if (!metadata.xmp.empty() && !t.xmp) lost.push_back("XMP" + cannot);
  if (metadata.xmp.size() > kMaxJpegXmpBytes && format == ImageFormat::kJpeg) {
    lost.emplace_back("XMP not kept: longer than a JPEG APP1 segment holds (" +
                      std::to_string(kMaxJpegXmpBytes) + " bytes)");
  }
  if (metadata.density && !t.density) lost.push_back("density" + cannot);
  return lost;
}

Image gray_to_colour(const Image& gray) {
  Image rgb = make_image(gray.width, gray.height, gray.channels == 2 ? 4 : 3);
  const auto in = static_cast<std::size_t>(gray.channels),
             out = static_cast<std::size_t>(rgb.channels);
  for (std::size_t i = 0, j = 0; i < gray.pixels.size(); i += in, j += out) {
    rgb.pixels[j] = rgb.pixels[j + 1] = rgb.pixels[j + 2] = gray.pixels[i];
    if (in == 2) rgb.pixels[j + 3] = gray.pixels[i + 1];
  }
  return rgb;
}

Image to_8_bit(const Image16& image) {
  Image out = make_image(image.width, image.height, image.channels);
  for (std::size_t i = 0; i < out.pixels.size(); ++i) {
    out.pixels[i] = static_cast<std::uint8_t>((image.pixels[i] * 255u + 32767u) / 65535u);
  }
  return out;
}

Image to_8_bit(const ImageF& image) {
  Image out = make_image(image.width, image.height, image.channels);
  const auto c = static_cast<std::size_t>(image.channels);
  const bool has_alpha = c == 2 || c == 4;
  for (std::size_t i = 0; i < out.pixels.size(); ++i) {
    const double v = std::max(0.0, static_cast<double>(image.pixels[i]));
    const double encoded = has_alpha && i % c == c - 1 ? v : std::pow(v, 1.0 / 2.2);
    out.pixels[i] = static_cast<std::uint8_t>(std::lround(std::min(255.0, 255.0 * encoded)));
  }
  return out;
}

}  // namespace gpublur
