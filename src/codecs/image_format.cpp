// image_format.cpp — format traits, extensions and signatures.
#include "codecs/image_format.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <utility>

namespace gpublur {
namespace {

constexpr std::array<std::pair<std::string_view, ImageFormat>, 17> kExtensions = {{
    {"png", ImageFormat::kPng},
    {"jpg", ImageFormat::kJpeg},
    {"jpeg", ImageFormat::kJpeg},
    {"jpe", ImageFormat::kJpeg},
    {"webp", ImageFormat::kWebp},
    {"tif", ImageFormat::kTiff},
    {"tiff", ImageFormat::kTiff},
    {"bmp", ImageFormat::kBmp},
    {"tga", ImageFormat::kTga},
    {"pnm", ImageFormat::kPnm},
    {"ppm", ImageFormat::kPnm},
    {"pgm", ImageFormat::kPnm},
    {"pbm", ImageFormat::kPnm},
    {"pam", ImageFormat::kPnm},
    {"hdr", ImageFormat::kHdr},
    {"gif", ImageFormat::kGif},
    {"psd", ImageFormat::kPsd},
}};

std::string lower(std::string_view text) {
  std::string s(text);
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string lower_extension(std::string_view path) {
  const auto slash = path.find_last_of('/');
  const auto dot = path.find_last_of('.');
  if (dot == std::string_view::npos || (slash != std::string_view::npos && dot < slash)) return "";
  return lower(path.substr(dot + 1));
}

bool starts_with(const std::uint8_t* bytes, std::size_t size, std::string_view prefix) {
  return size >= prefix.size() && std::memcmp(bytes, prefix.data(), prefix.size()) == 0;
}

// PNM: 'P', a digit 1-7, then white space.
bool is_pnm(const std::uint8_t* b, std::size_t size) {
  return size >= 3 && b[0] == 'P' && b[1] >= '1' && b[1] <= '7' && std::isspace(b[2]);
}

// TGA has no signature: its header's fields must be plausible (an image type gpublur reads, a
// colour map only where the type has one, a pixel depth TGA defines), and the path should say .tga.
bool looks_like_tga(const std::uint8_t* b, std::size_t size, std::string_view path) {
  if (size < 18 || format_for_path(path) != ImageFormat::kTga) return false;
  const int map_type = b[1], type = b[2], depth = b[16];
  const bool mapped = type == 1 || type == 9;
  const bool known = mapped || type == 2 || type == 3 || type == 10 || type == 11;
  const bool depth_ok = depth == 8 || depth == 15 || depth == 16 || depth == 24 || depth == 32;
  return known && depth_ok && (map_type == 0 || map_type == 1) && (!mapped || map_type == 1);
}

}  // namespace

FormatTraits format_traits(ImageFormat format) {
  FormatTraits t;
  switch (format) {
    case ImageFormat::kPng:
      return {true, true, false, true, true, true, true, true, true};
    case ImageFormat::kJpeg:
      return {true, false, false, false, true, true, true, true, true};
    case ImageFormat::kWebp:
      return {true, false, false, true, false, true, true, false, true};
    case ImageFormat::kTiff:  // EXIF as directories of tags (exif_tiff.hpp)
      return {true, true, false, true, true, true, true, true, true};
    case ImageFormat::kBmp:
      return {true, false, false, true, false, false, false, true};
    case ImageFormat::kTga:
      return {true, false, false, true, true, false, false, false};
    case ImageFormat::kPnm:
      return {true, true, false, true, true, false, false, false};
    case ImageFormat::kHdr:
      return {true, false, true, false, false, false, false, false};
    case ImageFormat::kGif:
    case ImageFormat::kPsd:
      return t;
  }
  return t;
}

std::optional<ImageFormat> format_for_path(std::string_view path) {
  const std::string ext = lower_extension(path);
  for (const auto& [name, format] : kExtensions) {
    if (name == ext) return format;
  }
  return std::nullopt;
}

std::optional<ImageFormat> parse_format(std::string_view text) {
  const std::string name = lower(text.substr(0, 1) == "." ? text.substr(1) : text);
  if (auto format = kFormatNames.parse(name)) return format;
  return format_for_path("." + name);
}

std::string_view default_extension(ImageFormat format) {
  switch (format) {
    case ImageFormat::kPng:
      return ".png";
    case ImageFormat::kJpeg:
      return ".jpg";
    case ImageFormat::kWebp:
      return ".webp";
    case ImageFormat::kTiff:
      return ".tif";
    case ImageFormat::kBmp:
      return ".bmp";
    case ImageFormat::kTga:
      return ".tga";
    case ImageFormat::kPnm:
      return ".pnm";
    case ImageFormat::kHdr:
      return ".hdr";
    case ImageFormat::kGif:
      return ".gif";
    case ImageFormat::kPsd:
      return ".psd";
  }
  return "";
}

std::string writable_extensions() {
  std::string s;
  for (const auto& entry : kFormatNames.entries) {
    if (!format_traits(entry.value).writable) continue;
    s += (s.empty() ? "" : ", ") + std::string(default_extension(entry.value));
  }
  return s;
}

std::optional<ImageFormat> sniff_format(const std::uint8_t* b, std::size_t size,
                                        std::string_view path) {
  if (starts_with(b, size, "\x89PNG\r\n\x1a\n")) return ImageFormat::kPng;
  if (starts_with(b, size, "\xff\xd8\xff")) return ImageFormat::kJpeg;
  if (size >= 12 && starts_with(b, size, "RIFF") && std::memcmp(b + 8, "WEBP", 4) == 0) {
    return ImageFormat::kWebp;
  }
  if (starts_with(b, size, std::string_view("II*\0", 4)) ||
      starts_with(b, size, std::string_view("MM\0*", 4))) {
    return ImageFormat::kTiff;
  }
  if (starts_with(b, size, "BM")) return ImageFormat::kBmp;
  if (starts_with(b, size, "GIF87a") || starts_with(b, size, "GIF89a")) return ImageFormat::kGif;
  if (starts_with(b, size, "8BPS")) return ImageFormat::kPsd;
  if (starts_with(b, size, "#?RADIANCE") || starts_with(b, size, "#?RGBE")) {
    return ImageFormat::kHdr;
  }
  if (is_pnm(b, size)) return ImageFormat::kPnm;
  if (looks_like_tga(b, size, path)) return ImageFormat::kTga;
  return std::nullopt;
}

}  // namespace gpublur
