// raw_bmp_test.cpp — uncompressed BMPs read and written without a codec pass: the layout of our
// encoder's files and of files as other writers make them (bottom-up and top-down, rows padded,
// 24 and 32 bits, bit fields, gaps, OS/2 headers) gives decode_bmp's image and metadata exactly;
// what needs decode_bmp's work or its words is left to it; and the header with the image's rows is
// encode_bmp's file, byte for byte.
#include <catch2/catch.hpp>

#include <string>

#include "codecs/bmp_header.hpp"
#include "codecs/image_decode.hpp"
#include "codecs/image_encode.hpp"
#include "codecs/raw_samples.hpp"
#include "support/raw_files.hpp"
#include "support/reference_blur.hpp"
#include "support/test_bytes.hpp"

using namespace gpublur;

namespace {

using test::Bytes;
using test::BmpSpec;

// The widths whose rows need 1, 2 and 3 bytes of padding (24 bits), and none.
const int kWidths[] = {1, 2, 3, 4, 5, 13};

// An image of `channels` whose alpha, where it has one, is all 0 unless `alpha`.
Image image_of(int width, int height, int channels, bool alpha, std::uint32_t seed) {
  Image image = test::random_image(width, height, channels, seed);
  if (channels == 4 && !alpha) {
    for (std::size_t i = 3; i < image.pixels.size(); i += 4) image.pixels[i] = 0;
  }
  if (channels == 4 && alpha) image.pixels[3] = 1;  // at least one
  return image;
}

// The raw read of `file` is decode_image's, samples and metadata.
void check_reads_as_decoder(const Bytes& file) {
  const std::optional<RawLayout> layout = raw_layout(file.data(), file.size(), file.size(), {});
  REQUIRE(layout);
  CHECK(layout->format == ImageFormat::kBmp);
  const DecodedImage read = test::read_by_layout(file, *layout);
  const DecodedImage decoded = decode_image(file, "x.bmp");
  CHECK(read.format == decoded.format);
  REQUIRE(read.image.sample_format() == SampleFormat::k8);
  CHECK(read.width() == decoded.width());
  CHECK(read.height() == decoded.height());
  CHECK(read.channels() == decoded.channels());
  CHECK(test::first_difference(read.image.get<Image>().pixels, decoded.image.get<Image>().pixels) ==
        "");
  CHECK(read.metadata.density.has_value() == decoded.metadata.density.has_value());
  if (read.metadata.density && decoded.metadata.density)
    CHECK(*read.metadata.density == *decoded.metadata.density);
  CHECK(read.metadata.empty() == decoded.metadata.empty());
}

bool declined(const Bytes& file, const DecodeLimits& limits = {}) {
  return !raw_layout(file.data(), file.size(), file.size(), limits);
}

Metadata with_density(double x, double y, Density::Unit unit) {
  Metadata m;
  m.density = Density{x, y, unit};
  return m;
}

}  // namespace

TEST_CASE("our encoder's BMPs read raw as decode_bmp reads them", "[codec][raw][bmp]") {
  const Metadata densities[] = {{}, with_density(300, 150, Density::Unit::kInch),
                                with_density(118, 118, Density::Unit::kCentimetre)};
  for (const int width : kWidths) {
    for (const int height : {1, 3}) {
      // Gray and gray+alpha are written as BGR and BGRA: read back as RGB and RGBA.
      for (const int channels : {1, 2, 3, 4}) {
        for (const bool alpha : {true, false}) {
          if (channels != 4 && !alpha) continue;
          for (const Metadata& metadata : densities) {
            CAPTURE(width, height, channels, alpha, metadata.density.has_value());
            const Image image = image_of(width, height, channels, alpha, 11);
            const Bytes file = encode_image(image, ImageFormat::kBmp, {}, metadata);
            const std::optional<RawLayout> layout =
                raw_layout(file.data(), file.size(), file.size(), {});
            REQUIRE(layout);
            CHECK(layout->bottom_up);
            CHECK(layout->stride % 4 == 0);
            CHECK(layout->offset + layout->stored_bytes() == file.size());
            check_reads_as_decoder(file);
          }
        }
      }
    }
  }
}

TEST_CASE("BMPs as other writers make them read raw as decode_bmp reads them",
          "[codec][raw][bmp]") {
  const std::uint32_t kRgbMasks[] = {0xff0000, 0xff00, 0xff};
  const std::vector<std::uint32_t> rgb(std::begin(kRgbMasks), std::end(kRgbMasks));
  std::vector<std::uint32_t> rgba = rgb;
  rgba.push_back(0xff000000);
  std::vector<std::pair<std::string, BmpSpec>> specs;
  for (const bool top_down : {false, true}) {
    BmpSpec s;
    s.top_down = top_down;
    specs.push_back({"24-bit BI_RGB", s});
    s.bpp = 32;
    specs.push_back({"32-bit BI_RGB", s});
    s.compression = 3, s.masks = rgba, s.dib = 108;
    specs.push_back({"32-bit V4 bit fields", s});
    s.dib = 124;
    specs.push_back({"32-bit V5 bit fields", s});
    s.dib = 56;
    specs.push_back({"32-bit V3 bit fields", s});
    s.dib = 40, s.compression = 6;
    specs.push_back({"32-bit BI_ALPHABITFIELDS after the header", s});
    s = BmpSpec{};
    s.top_down = top_down, s.compression = 3, s.masks = rgb;
    specs.push_back({"24-bit bit fields after the header", s});
    s.dib = 52;
    specs.push_back({"24-bit V2 bit fields", s});
    s = BmpSpec{};
    s.top_down = top_down, s.dib = 124, s.masks = {1, 2, 3, 4};
    specs.push_back({"24-bit V5, BI_RGB: its masks ignored", s});
    s = BmpSpec{};
    s.top_down = top_down, s.gap = 2, s.trailing = 3, s.padding = 0;
    specs.push_back({"a gap before the rows and bytes after them", s});
    s.gap = 1000, s.x_ppm = 3780, s.y_ppm = 0;
    specs.push_back({"a long gap; half a density", s});
    s = BmpSpec{};
    s.top_down = top_down, s.x_ppm = 0, s.y_ppm = 0;
    specs.push_back({"no density", s});
  }
  BmpSpec core;
  core.dib = 12;
  specs.push_back({"OS/2 24-bit", core});
  core.bpp = 32;
  specs.push_back({"OS/2 32-bit", core});
  for (const auto& [name, spec] : specs) {
    for (const int width : kWidths) {
      for (const bool alpha : {true, false}) {
        const int channels = spec.bpp / 8;
        if (channels == 3 && !alpha) continue;
        CAPTURE(name, width, alpha);
        const Image image = image_of(width, 3, channels, alpha, 12);
        check_reads_as_decoder(test::bmp_as_written(spec, image));
      }
    }
  }
}

TEST_CASE("a 32-bit BMP's alpha is kept only where a pixel has one, as decode_bmp keeps it",
          "[codec][raw][bmp]") {
  BmpSpec s;
  s.bpp = 32;
  for (const bool alpha : {false, true}) {
    const Bytes file = test::bmp_as_written(s, image_of(5, 4, 4, alpha, 3));
    const std::optional<RawLayout> layout = raw_layout(file.data(), file.size(), file.size(), {});
    REQUIRE(layout);
    CHECK(layout->alpha_if_any);
    CHECK(test::read_by_layout(file, *layout).channels() == (alpha ? 4 : 3));
  }
}

TEST_CASE("what needs decode_bmp is left to it", "[codec][raw][bmp]") {
  const Image rgb = image_of(5, 3, 3, true, 4);
  const Bytes good = test::bmp_as_written({}, rgb);
  REQUIRE_FALSE(declined(good));
  // Palettes, run-length codes, 16 bits (5-5-5 and bit fields).
  CHECK(declined(test::bmp(3, 2, 8, {0xff0000, 0x00ff00}, {}, {0, 1, 0, 0, 1, 0, 1, 0})));
  CHECK(declined(test::bmp(3, 2, 4, {0xff0000, 0x00ff00}, {}, {0x01, 0x10, 0, 0, 0x10, 0, 0, 0})));
  CHECK(declined(test::bmp(9, 2, 1, {0, 0xffffff}, {}, {0xa5, 0x80, 0, 0, 0x5a, 0, 0, 0})));
  CHECK(declined(test::bmp(6, 2, 8, {0xff0000, 0x00ff00}, {}, {3, 1, 0, 0, 0, 1}, 1)));
  CHECK(declined(test::bmp(2, 1, 16, {}, {}, {0x1f, 0x7c, 0xe0, 0x03})));
  CHECK(declined(test::bmp(2, 1, 16, {}, {0xf800, 0x07e0, 0x001f}, {0x1f, 0xf8, 0xe0, 0x07})));
  // Bit fields of other bytes: 32 bits whose fourth byte is no field (3 channels from 4 bytes),
  // R and B swapped, and fields that are not whole bytes.
  BmpSpec s;
  s.bpp = 32, s.compression = 3, s.masks = {0xff0000, 0xff00, 0xff};
  CHECK(declined(test::bmp_as_written(s, image_of(5, 3, 4, true, 5))));
  s.dib = 108, s.masks = {0xff0000, 0xff00, 0xff, 0};
  CHECK(declined(test::bmp_as_written(s, image_of(5, 3, 4, true, 5))));
  s.masks = {0xff, 0xff00, 0xff0000, 0xff000000};
  CHECK(declined(test::bmp_as_written(s, image_of(5, 3, 4, true, 5))));
  s.masks = {0x3ff00000, 0xffc00, 0x3ff, 0xc0000000};
  CHECK(declined(test::bmp_as_written(s, image_of(5, 3, 4, true, 5))));
  // Compressed 24 bits (BI_JPEG), a header size BMP has not, a width of 0.
  BmpSpec jpeg;
  jpeg.compression = 4;
  CHECK(declined(test::bmp_as_written(jpeg, rgb)));
  Bytes odd = good;
  odd[14] = 20;  // the info header's size
  CHECK(declined(odd));
  Bytes empty = good;
  empty[18] = empty[19] = 0;  // width 0
  CHECK(declined(empty));
  // Truncated: the last row's padding missing (the decoder refuses that too), and a header longer
  // than the bytes looked at.
  CHECK(!raw_layout(good.data(), good.size(), good.size() - 1, {}));
  CHECK_THROWS_WITH(decode_image(Bytes(good.begin(), good.end() - 1), "x.bmp"),
                    Catch::Contains("truncated"));
  CHECK(!raw_layout(good.data(), 30, good.size(), {}));
  // Past the limits, counting 32-bit pixels as 4 channels as the decoder does (its message).
  CHECK(declined(good, DecodeLimits{14, 0}));
  BmpSpec thirty_two;
  thirty_two.bpp = 32;
  const Bytes rgbx = test::bmp_as_written(thirty_two, image_of(5, 3, 4, false, 6));
  const DecodeLimits room_for_rgb{0, 5 * 3 * 3};
  CHECK(declined(rgbx, room_for_rgb));
  CHECK_THROWS(decode_image(rgbx, "x.bmp", room_for_rgb));
}

TEST_CASE("a raw BMP header and the image's rows are encode_bmp's file", "[codec][raw][bmp]") {
  Metadata with_icc = with_density(72, 72, Density::Unit::kInch);
  with_icc.icc = {1, 2, 3};  // which BMP does not keep, either way
  const Metadata metadata[] = {{}, with_density(300, 150, Density::Unit::kInch),
                               with_density(118.11, 50, Density::Unit::kCentimetre),
                               with_density(2, 1, Density::Unit::kNone), with_icc};
  for (const int width : kWidths) {
    for (const int height : {1, 4}) {
      for (const int channels : {3, 4}) {
        for (const Metadata& m : metadata) {
          CAPTURE(width, height, channels);
          const Image image = image_of(width, height, channels, true, 7);
          const Bytes expected = encode_image(image, ImageFormat::kBmp, {}, m);
          AnyImage raw(image);
          const std::optional<RawFile> file = raw_file(raw, ImageFormat::kBmp, m);
          REQUIRE(file);
          CHECK(test::first_difference(test::written(*file), expected) == "");
        }
      }
    }
  }
}

TEST_CASE("a raw BMP read and written again is its file", "[codec][raw][bmp]") {
  const Metadata m = with_density(300, 300, Density::Unit::kInch);
  for (const int channels : {3, 4}) {
    const Bytes file = encode_image(image_of(5, 7, channels, true, 8), ImageFormat::kBmp, {}, m);
    const std::optional<RawLayout> layout = raw_layout(file.data(), file.size(), file.size(), {});
    REQUIRE(layout);
    DecodedImage read = test::read_by_layout(file, *layout);
    const std::optional<RawFile> again = raw_file(read.image, ImageFormat::kBmp, read.metadata);
    REQUIRE(again);
    CHECK(test::first_difference(test::written(*again), file) == "");
  }
}

TEST_CASE("what encode_bmp must convert or refuse is left to it, untouched", "[codec][raw][bmp]") {
  for (const int channels : {1, 2}) {  // gray, widened by the encoder
    const Image image = image_of(3, 2, channels, true, 9);
    AnyImage raw(image);
    CHECK_FALSE(raw_file(raw, ImageFormat::kBmp, {}));
    CHECK(raw.get<Image>().pixels == image.pixels);
  }
  AnyImage sixteen(test::random_image16(3, 2, 3, 1));
  CHECK_FALSE(raw_file(sixteen, ImageFormat::kBmp, {}));
  // Too large for BMP's 32-bit sizes: the encoder's words. (Its samples are never looked at: a
  // raster that claims the size holds one byte.)
  CHECK_THROWS_WITH(bmp_header(65535, 65535, 3, {}), Catch::Contains("too large"));
  Image huge;
  huge.width = huge.height = 65535, huge.channels = 3, huge.pixels = {42};
  AnyImage claimed(std::move(huge));
  CHECK_FALSE(raw_file(claimed, ImageFormat::kBmp, {}));
  CHECK(claimed.get<Image>().pixels == std::vector<std::uint8_t>{42});
}
