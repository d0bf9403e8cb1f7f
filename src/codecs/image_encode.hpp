// image_encode.hpp — writing image files: each format's encoder behind one call, the conversions
// a format needs (16 bits to 8, HDR to 8 bits), what metadata it cannot keep, and writing a file
// atomically. Thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "codecs/encode_options.hpp"
#include "codecs/image_format.hpp"
#include "image/any_image.hpp"
#include "image/image.hpp"
#include "image/metadata.hpp"

namespace gpublur {

/// `image` as a file of `format` (in memory), with as much of `metadata` as the format holds.
/// 8-bit images: every writable format but HDR (UsageError). 16-bit: PNG, TIFF, PNM (else
/// UsageError; convert with to_8_bit). Floating point: HDR only. Throws IoError when encoding
/// fails.
std::vector<std::uint8_t> encode_image(const Image& image, ImageFormat format,
                                       const EncodeOptions& options = {},
                                       const Metadata& metadata = {});
std::vector<std::uint8_t> encode_image(const Image16& image, ImageFormat format,
                                       const EncodeOptions& options = {},
                                       const Metadata& metadata = {});
std::vector<std::uint8_t> encode_image(const ImageF& image, ImageFormat format,
                                       const EncodeOptions& options = {},
                                       const Metadata& metadata = {});

/// The same, at the image's depth.
std::vector<std::uint8_t> encode_image(const AnyImage& image, ImageFormat format,
                                       const EncodeOptions& options = {},
                                       const Metadata& metadata = {});

/// encode_image of an image no longer needed: its samples are freed as soon as the encoder is done
/// with them (PNG: once its rows are filtered), so that encoding holds about twice the image at
/// most. `image` is left empty.
template <typename Sample>
std::vector<std::uint8_t> encode_image_consuming(Raster<Sample>&& image, ImageFormat format,
                                                 const EncodeOptions& options = {},
                                                 const Metadata& metadata = {});
std::vector<std::uint8_t> encode_image_consuming(AnyImage&& image, ImageFormat format,
                                                 const EncodeOptions& options = {},
                                                 const Metadata& metadata = {});

/// The same, in the format `path`'s extension names (UsageError for an extension gpublur does
/// not write).
template <typename Sample>
std::vector<std::uint8_t> encode_for_path(const Raster<Sample>& image, const std::string& path,
                                          const EncodeOptions& options = {},
                                          const Metadata& metadata = {});

/// encode_for_path, then replaces `path` atomically (atomic_file.hpp).
template <typename Sample>
void write_image(const Raster<Sample>& image, const std::string& path,
                 const EncodeOptions& options = {}, const Metadata& metadata = {});

/// What of `metadata` a `format` file will not hold, and why, for --verbose: "ICC profile not
/// kept: bmp cannot hold it", "EXIF not kept: longer than a JPEG APP1 segment holds", ...
std::vector<std::string> metadata_not_kept(const Metadata& metadata, ImageFormat format);

/// Gray (gray+alpha) as RGB (RGBA), each gray sample repeated, for formats that hold no gray.
Image gray_to_colour(const Image& gray);

/// 16 -> 8 bits, rounded to nearest: v * 255 / 65535.
Image to_8_bit(const Image16& image);

/// HDR -> 8 bits as stb_image and most viewers show it: colour v -> 255 * v^(1/2.2), clamped;
/// alpha -> 255 * a.
Image to_8_bit(const ImageF& image);

}  // namespace gpublur
