// codec_registry_test.cpp — the codecs' registry holds together: names and extensions name one
// row each, every row's encoders write files its own signature (and no other row's) recognises,
// which its decoder reads back at the depth written, and the lists drawn from it.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "base/errors.hpp"
#include "codecs/codec_registry.hpp"
#include "codecs/image_decode.hpp"
#include "codecs/image_encode.hpp"

using namespace gpublur;

namespace {

// Each extension of a row: ".jpg", ".jpeg", ".jpe".
std::vector<std::string> extensions_of(const Codec& codec) {
  std::vector<std::string> all;
  std::string rest(codec.extensions);
  for (std::size_t start = 0; start < rest.size();) {
    const std::size_t end = std::min(rest.find(' ', start), rest.size());
    all.push_back(rest.substr(start, end - start));
    start = end + 1;
  }
  return all;
}

// What `codec` writes of a small image of `channels`, at every depth it writes.
std::vector<std::pair<int, std::vector<std::uint8_t>>> files_of(const Codec& codec, int channels) {
  std::vector<std::pair<int, std::vector<std::uint8_t>>> files;
  if (codec.encode8.encode) {
    files.emplace_back(8, encode_image(make_raster<std::uint8_t>(9, 7, channels), codec.format));
  }
  if (codec.encode16.encode) {
    files.emplace_back(16, encode_image(make_raster<std::uint16_t>(9, 7, channels), codec.format));
  }
  if (codec.encode_float.encode) {
    files.emplace_back(32, encode_image(make_raster<float>(9, 7, channels), codec.format));
  }
  return files;
}

}  // namespace

TEST_CASE("every name and extension names one row, found both ways", "[codec][registry]") {
  std::set<std::string> names, extensions;
  for (const Codec& codec : codecs()) {
    CAPTURE(codec.name);
    CHECK(names.insert(std::string(codec.name)).second);
    CHECK(&codec_of(codec.format) == &codec);
    CHECK(find_codec(codec.name) == &codec);
    CHECK(parse_format(codec.name) == codec.format);
    CHECK(format_name(codec.format) == codec.name);
    CHECK_FALSE(codec.label.empty());
    const std::vector<std::string> own = extensions_of(codec);
    REQUIRE_FALSE(own.empty());
    CHECK(default_extension(codec.format) == own.front());
    for (const std::string& extension : own) {
      CAPTURE(extension);
      CHECK(extensions.insert(extension).second);
      CHECK(format_for_path("dir/x" + extension) == codec.format);
      CHECK(parse_format(extension.substr(1)) == codec.format);
    }
  }
  CHECK(find_codec("xyz") == nullptr);
}

TEST_CASE("every row's files are its own: sniffed as it, by no other row, read back",
          "[codec][registry]") {
  for (const Codec& codec : codecs()) {
    for (int channels = 1; channels <= 4; ++channels) {
      for (const auto& [bits, file] : files_of(codec, channels)) {
        CAPTURE(codec.name, channels, bits);
        const std::string name = "x" + std::string(default_extension(codec.format));
        CHECK(sniff_format(file.data(), file.size(), name) == codec.format);
        for (const Codec& other : codecs()) {
          if (&other != &codec) CHECK_FALSE(other.sniff(file.data(), file.size(), name));
        }
        const DecodedImage back = decode_image(file, name);
        CHECK(back.format == codec.format);
        CHECK(back.image.bits() == bits);
        CHECK(back.width() == 9);
        CHECK(back.height() == 7);
      }
    }
  }
}

TEST_CASE("a row without an encoder for a depth refuses it, naming those that have one",
          "[codec][registry]") {
  const Image16 deep = make_raster<std::uint16_t>(2, 2, 3);
  CHECK_THROWS_WITH(
      encode_image(deep, ImageFormat::kJpeg),
      "jpeg cannot hold 16-bit samples; use .png, .tif or .pnm, or convert to 8 bits");
  CHECK_THROWS_WITH(encode_image(make_raster<float>(2, 2, 3), ImageFormat::kPng),
                    "png cannot hold floating-point samples; use .hdr");
  CHECK_THROWS_WITH(encode_image(make_image(2, 2, 3), ImageFormat::kHdr),
                    "an 8-bit image cannot be written as .hdr; HDR output needs HDR input");
  CHECK_THROWS_WITH(encode_image(make_image(2, 2, 3), ImageFormat::kGif),
                    "gpublur does not write gif; use " + writable_extensions());
  CHECK(writable_extensions() == ".png, .jpg, .webp, .tif, .bmp, .tga, .pnm, .hdr");
  CHECK(labels_where(&FormatTraits::sixteen_bit) == "PNG, TIFF and PNM");
}
