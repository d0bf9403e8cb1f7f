// image_encode.cpp — dispatch to the format's encoder, conversions, atomic writes.
#include "codecs/image_encode.hpp"

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "base/atomic_file.hpp"
#include "base/errors.hpp"
#include "codecs/bmp_codec.hpp"
#include "codecs/exif_tiff.hpp"
#include "codecs/hdr_codec.hpp"
#include "codecs/jpeg_codec.hpp"
#include "codecs/jpeg_markers.hpp"
#include "codecs/png_encode.hpp"
#include "codecs/pnm_codec.hpp"
#include "codecs/tga_codec.hpp"
#include "codecs/tiff_codec.hpp"
#include "codecs/webp_codec.hpp"

namespace gpublur {
namespace {

[[noreturn]] void cannot_hold(ImageFormat format, const char* what) {
  throw UsageError(std::string(format_name(format)) + " cannot hold " + what);
}

ImageFormat format_of_path(const std::string& path) {
  const std::optional<ImageFormat> format = format_for_path(path);
  if (!format || !format_traits(*format).writable) {
    throw UsageError("cannot write '" + path + "': unknown extension; use " +
                     writable_extensions());
  }
  return *format;
}

}  // namespace

std::vector<std::uint8_t> encode_image(const Image& image, ImageFormat format,
                                       const EncodeOptions& options, const Metadata& metadata) {
  switch (format) {
    case ImageFormat::kPng:
      return encode_png(image, options.png_level, metadata);
    case ImageFormat::kJpeg:
      return encode_jpeg(image, options.jpeg_quality, options.jpeg_subsampling, metadata);
    case ImageFormat::kWebp:
      return encode_webp(image, options.webp_quality, options.webp_lossless, metadata);
    case ImageFormat::kTiff:
      return encode_tiff(image, metadata);
    case ImageFormat::kBmp:
      return encode_bmp(image, metadata);
    case ImageFormat::kTga:
      return encode_tga(image);
    case ImageFormat::kPnm:
      return encode_pnm(image);
    case ImageFormat::kHdr:
      throw UsageError("an 8-bit image cannot be written as .hdr; HDR output needs HDR input");
    case ImageFormat::kGif:
    case ImageFormat::kPsd:
      break;
  }
  throw UsageError(std::string("gpublur does not write ") + std::string(format_name(format)) +
                   "; use " + writable_extensions());
}

std::vector<std::uint8_t> encode_image(const Image16& image, ImageFormat format,
                                       const EncodeOptions& options, const Metadata& metadata) {
  switch (format) {
    case ImageFormat::kPng:
      return encode_png(image, options.png_level, metadata);
    case ImageFormat::kTiff:
      return encode_tiff(image, metadata);
    case ImageFormat::kPnm:
      return encode_pnm(image);
    default:
      cannot_hold(format, "16-bit samples; use .png, .tif or .pnm, or convert to 8 bits");
  }
}

std::vector<std::uint8_t> encode_image(const ImageF& image, ImageFormat format,
                                       const EncodeOptions&, const Metadata&) {
  if (format != ImageFormat::kHdr) cannot_hold(format, "floating-point samples; use .hdr");
  return encode_hdr(image);
}

template <typename Sample>
std::vector<std::uint8_t> encode_image_consuming(Raster<Sample>&& image, ImageFormat format,
                                                 const EncodeOptions& options,
                                                 const Metadata& metadata) {
  if constexpr (!std::is_same_v<Sample, float>) {
    if (format == ImageFormat::kPng)
      return encode_png(std::move(image), options.png_level, metadata);
  }
  std::vector<std::uint8_t> bytes = encode_image(image, format, options, metadata);
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
  write_file_atomically(path, encode_for_path(image, path, options, metadata), Durability::kRenamed);
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
