// image_format.cpp — names, extensions, traits and signatures, looked up in the codecs' registry.
#include "codecs/image_format.hpp"

#include <algorithm>
#include <cctype>

#include "codecs/codec_registry.hpp"

namespace gpublur {
namespace {

std::string lower(std::string_view text) {
  std::string s(text);
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// ".png" from "x.PNG"; "" where the last name has no dot.
std::string lower_extension(std::string_view path) {
  const auto slash = path.find_last_of('/');
  const auto dot = path.find_last_of('.');
  if (dot == std::string_view::npos || (slash != std::string_view::npos && dot < slash)) return "";
  return lower(path.substr(dot));
}

// Whether `extension` (".jpg") is one of a row's `extensions` (".jpg .jpeg .jpe").
bool has_extension(std::string_view extensions, std::string_view extension) {
  while (!extensions.empty()) {
    const std::size_t end = std::min(extensions.find(' '), extensions.size());
    if (extensions.substr(0, end) == extension) return true;
    extensions.remove_prefix(std::min(end + 1, extensions.size()));
  }
  return false;
}

// "a", "a or b", "a, b or c" (`last` "or"; "and", ...).
std::string listed(const std::vector<std::string>& items, std::string_view last) {
  std::string s;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) s += i + 1 == items.size() ? " " + std::string(last) + " " : ", ";
    s += items[i];
  }
  return s;
}

}  // namespace

std::string_view format_name(ImageFormat format) { return codec_of(format).name; }

std::string_view format_label(ImageFormat format) { return codec_of(format).label; }

FormatTraits format_traits(ImageFormat format) { return codec_of(format).traits; }

std::optional<ImageFormat> format_for_path(std::string_view path) {
  const std::string ext = lower_extension(path);
  if (ext.size() < 2) return std::nullopt;
  for (const Codec& codec : codecs()) {
    if (has_extension(codec.extensions, ext)) return codec.format;
  }
  return std::nullopt;
}

std::optional<ImageFormat> parse_format(std::string_view text) {
  const std::string name = lower(text.substr(0, 1) == "." ? text.substr(1) : text);
  if (const Codec* codec = find_codec(name)) return codec->format;
  return format_for_path("." + name);
}

std::string_view default_extension(ImageFormat format) {
  const std::string_view all = codec_of(format).extensions;
  return all.substr(0, all.find(' '));
}

std::string writable_extensions() {
  std::string s;
  for (const ImageFormat format : formats_where(&FormatTraits::writable)) {
    s += (s.empty() ? "" : ", ") + std::string(default_extension(format));
  }
  return s;
}

std::vector<ImageFormat> formats_where(bool FormatTraits::*trait) {
  std::vector<ImageFormat> formats;
  for (const Codec& codec : codecs()) {
    if (codec.traits.*trait) formats.push_back(codec.format);
  }
  return formats;
}

std::string extensions_where(bool FormatTraits::*trait) {
  std::vector<std::string> extensions;
  for (const ImageFormat f : formats_where(trait)) extensions.emplace_back(default_extension(f));
  return listed(extensions, "or");
}

std::string labels_where(bool FormatTraits::*trait) {
  std::vector<std::string> labels;
  for (const ImageFormat f : formats_where(trait)) labels.emplace_back(format_label(f));
  return listed(labels, "and");
}

std::optional<ImageFormat> sniff_format(const std::uint8_t* bytes, std::size_t size,
                                        std::string_view path) {
  // A signature is certain; a format without one is only a guess, made where none matched.
  for (const bool last : {false, true}) {
    for (const Codec& codec : codecs()) {
      if (codec.sniff_last == last && codec.sniff(bytes, size, path)) return codec.format;
    }
  }
  return std::nullopt;
}

}  // namespace gpublur
