// image_format.hpp — the file formats gpublur reads and writes: their names, extensions, what
// their content starts with, and what each can hold (16-bit or floating-point samples, alpha,
// metadata), answered from the codecs' registry (codec_registry.hpp). Pure; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpublur {

enum class ImageFormat { kPng, kJpeg, kWebp, kTiff, kBmp, kTga, kPnm, kHdr, kGif, kPsd };

/// The format's name, as --format takes it and messages and --json print it: "png", "jpeg", ...
std::string_view format_name(ImageFormat format);

/// How lists for people name it: "PNG", "JPEG", "WebP", ...
std::string_view format_label(ImageFormat format);

/// What a format can hold, and whether gpublur writes it (and at which depths).
struct FormatTraits {
  bool writable = false;
  bool sixteen_bit = false;     // keeps 16-bit samples
  bool floating_point = false;  // keeps floating-point (HDR) samples, and only those
  bool alpha = false;           // keeps an alpha channel
  bool gray = false;            // keeps one-channel images as one channel
  bool icc = false;             // holds an ICC profile
  bool exif = false;            // holds EXIF
  bool density = false;         // holds pixels per inch or cm
  bool xmp = false;             // holds XMP
};
FormatTraits format_traits(ImageFormat format);

/// The format named by `path`'s extension, case-insensitive (.png .jpg .jpeg .webp .tif .tiff
/// .bmp .tga .pnm .ppm .pgm .pbm .pam .hdr .gif .psd); nullopt for any other.
std::optional<ImageFormat> format_for_path(std::string_view path);

/// --format's value (a name, or an extension with or without its dot: "jpg", ".tif").
std::optional<ImageFormat> parse_format(std::string_view text);

/// The extension written for a format when one is chosen by --format: ".png", ".jpg", ...
std::string_view default_extension(ImageFormat format);

/// The formats gpublur writes, for messages: ".png, .jpg, ...".
std::string writable_extensions();

/// The formats of which `trait` holds, in the registry's order: formats_where(
/// &FormatTraits::sixteen_bit) are those that keep 16-bit samples.
std::vector<ImageFormat> formats_where(bool FormatTraits::*trait);

/// Their extensions, as a message offers them: ".png, .tif or .pnm".
std::string extensions_where(bool FormatTraits::*trait);

/// Their labels, as a message names them together: "PNG, TIFF and PNM".
std::string labels_where(bool FormatTraits::*trait);

/// The format `bytes` hold, from their first bytes (TGA, which has no signature, from its header
/// and the path's extension); nullopt when they look like no format gpublur reads.
std::optional<ImageFormat> sniff_format(const std::uint8_t* bytes, std::size_t size,
                                        std::string_view path = {});

}  // namespace gpublur
