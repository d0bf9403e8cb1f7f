// png_decode_test.cpp — the lodepng + libdeflate reader against files libpng writes with every
// row filter and every variant, checked against what stb_image reads from them.
#include <catch2/catch.hpp>

#include <png.h>

#include <algorithm>
#include <csetjmp>
#include <cstring>
#include <string>

#include "base/errors.hpp"
#include "codecs/png_decode.hpp"
#include "support/reference_blur.hpp"
#include "support/stb_reference.hpp"
#include "support/test_bytes.hpp"

using namespace gpublur;

namespace {

struct PngShape {
  int width = 0, height = 0;
  int bit_depth = 8;
  int color_type = PNG_COLOR_TYPE_RGB;
  bool interlaced = false;
  bool colour_key = false;  // a tRNS chunk on gray or RGB
};

void append(png_structp png, png_bytep data, png_size_t size) {
  auto* out = static_cast<std::vector<std::uint8_t>*>(png_get_io_ptr(png));
  out->insert(out->end(), data, data + size);
}

// `rows` (PNG byte order) as a PNG from libpng, letting it pick any of the five filters per row.
std::vector<std::uint8_t> write_with_libpng(const PngShape& shape,
                                            std::vector<std::vector<std::uint8_t>>& rows) {
  std::vector<std::uint8_t> out;
  std::vector<png_bytep> pointers;
  for (auto& row : rows) pointers.push_back(row.data());
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    FAIL("libpng could not write the test image");
  }
  png_set_write_fn(png, &out, append, nullptr);
  png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_ALL_FILTERS);
  png_set_IHDR(png, info, static_cast<png_uint_32>(shape.width),
               static_cast<png_uint_32>(shape.height), shape.bit_depth, shape.color_type,
               shape.interlaced ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_color palette[4] = {{0, 0, 0}, {255, 0, 0}, {0, 255, 0}, {0, 0, 255}};
  if (shape.color_type == PNG_COLOR_TYPE_PALETTE) png_set_PLTE(png, info, palette, 4);
  png_color_16 key{};
  png_byte alphas[4] = {0, 128, 255, 64};
  if (shape.colour_key && shape.color_type == PNG_COLOR_TYPE_PALETTE) {
    png_set_tRNS(png, info, alphas, 4, nullptr);
  } else if (shape.colour_key) {
    png_set_tRNS(png, info, nullptr, 0, &key);
  }
  png_write_info(png, info);
  png_write_image(png, pointers.data());
  png_write_end(png, info);
  png_destroy_write_struct(&png, &info);
  return out;
}

int channels_of(int color_type) {
  return color_type == PNG_COLOR_TYPE_GRAY         ? 1
         : color_type == PNG_COLOR_TYPE_GRAY_ALPHA ? 2
         : color_type == PNG_COLOR_TYPE_RGB        ? 3
         : color_type == PNG_COLOR_TYPE_RGBA       ? 4
                                                   : 1;
}

// Smooth ramps with noise on top, so libpng's per-row choice varies among the five filters.
std::vector<std::vector<std::uint8_t>> test_rows(const PngShape& shape, std::uint32_t seed) {
  const std::size_t bytes = static_cast<std::size_t>(shape.width) *
                            static_cast<std::size_t>(channels_of(shape.color_type)) *
                            static_cast<std::size_t>(shape.bit_depth) / 8;
  const Image noise = test::random_image(static_cast<int>(bytes), shape.height, 1, seed);
  std::vector<std::vector<std::uint8_t>> rows(static_cast<std::size_t>(shape.height));
  for (std::size_t y = 0; y < rows.size(); ++y) {
    rows[y].resize(bytes);
    for (std::size_t x = 0; x < bytes; ++x) {
      const std::uint8_t n = noise.pixels[y * bytes + x];
      rows[y][x] = static_cast<std::uint8_t>(y % 3 == 0 ? n : (x + 2 * y) + (n & 7));
      if (shape.color_type == PNG_COLOR_TYPE_PALETTE) rows[y][x] &= 3;
    }
  }
  return rows;
}

}  // namespace

DecodedImage decode(const std::vector<std::uint8_t>& file, const DecodeLimits& limits = {}) {
  return decode_png(file.data(), file.size(), limits);
}

TEST_CASE("lodepng + libdeflate read libpng's files, every filter, exactly", "[png]") {
  for (int color_type : {PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB,
                         PNG_COLOR_TYPE_RGBA}) {
    for (int bit_depth : {8, 16}) {
      CAPTURE(color_type, bit_depth);
      const PngShape shape{173, 61, bit_depth, color_type};
      auto rows = test_rows(shape, static_cast<std::uint32_t>(color_type * 16 + bit_depth));
      const std::vector<std::uint8_t> file = write_with_libpng(shape, rows);
      const DecodedImage read = decode(file);
      REQUIRE(read.image.bits() == bit_depth);
      const int channels = channels_of(color_type);
      const auto sample_bytes = static_cast<std::size_t>(bit_depth / 8);
      for (std::size_t y = 0; y < rows.size(); ++y) {
        for (std::size_t i = 0; i < rows[y].size(); ++i) {
          const std::size_t sample = (y * rows[y].size() + i) / sample_bytes;
          const unsigned got = bit_depth == 8
                                   ? read.image.get<Image>().pixels[sample]
                                   : (i % 2 == 0 ? read.image.get<Image16>().pixels[sample] >> 8
                                                 : read.image.get<Image16>().pixels[sample] & 0xff);
          if (got != rows[y][i]) FAIL("byte " << i << " of row " << y << " differs");
        }
      }
      CHECK(read.channels() == channels);
    }
  }
}

TEST_CASE("every other PNG variant reads as stb_image reads it", "[png]") {
  struct Case {
    const char* what;
    PngShape shape;
  };
  const Case cases[] = {
      {"palette", {40, 20, 8, PNG_COLOR_TYPE_PALETTE}},
      {"palette with tRNS", {40, 20, 8, PNG_COLOR_TYPE_PALETTE, false, true}},
      {"interlaced RGB", {41, 23, 8, PNG_COLOR_TYPE_RGB, true}},
      {"interlaced 16-bit gray+alpha", {17, 9, 16, PNG_COLOR_TYPE_GRAY_ALPHA, true}},
      {"RGB colour key", {40, 20, 8, PNG_COLOR_TYPE_RGB, false, true}},
      {"16-bit RGB colour key", {40, 20, 16, PNG_COLOR_TYPE_RGB, false, true}},
      {"gray colour key", {40, 20, 8, PNG_COLOR_TYPE_GRAY, false, true}},
      {"1-bit gray", {40, 20, 1, PNG_COLOR_TYPE_GRAY}},
      {"2-bit gray", {33, 20, 2, PNG_COLOR_TYPE_GRAY}},
      {"4-bit gray, interlaced", {35, 21, 4, PNG_COLOR_TYPE_GRAY, true}},
  };
  for (const Case& c : cases) {
    CAPTURE(c.what);
    auto rows = test_rows(c.shape, 3);
    const std::vector<std::uint8_t> file = write_with_libpng(c.shape, rows);
    const DecodedImage read = decode(file);
    const std::optional<AnyImage> stb = test::stb_decode(file);
    REQUIRE(stb);
    CHECK(read.width() == c.shape.width);
    CHECK(read.height() == c.shape.height);
    CHECK(read.channels() == stb->channels());
    CHECK(read.image.bits() == stb->bits());
    CHECK(read.image == *stb);
  }
}

TEST_CASE("damaged image data, truncated files and other formats are IoErrors", "[png]") {
  const PngShape shape{64, 64, 8, PNG_COLOR_TYPE_RGB};
  auto rows = test_rows(shape, 4);
  std::vector<std::uint8_t> file = write_with_libpng(shape, rows);
  CHECK_NOTHROW(decode(file));
  std::vector<std::uint8_t> flipped = file;
  flipped[flipped.size() - 30] ^= 0x01;  // inside the image data, near the Adler-32
  CHECK_THROWS_AS(decode(flipped), IoError);
  file.resize(file.size() / 2);  // truncated
  CHECK_THROWS_AS(decode(file), IoError);
  CHECK_THROWS_AS(decode(std::vector<std::uint8_t>{'B', 'M', 0, 0, 0, 0}), IoError);
  CHECK_THROWS_AS(decode({}), IoError);
}

TEST_CASE("a small PNG claiming a huge image is refused before anything is decoded", "[png]") {
  PngShape shape{8, 8, 8, PNG_COLOR_TYPE_RGB};
  auto rows = test_rows(shape, 5);
  std::vector<std::uint8_t> file = write_with_libpng(shape, rows);
  // IHDR's width and height (bytes 16..23) now claim 60000 x 60000: 10.8 GB of samples in a few
  // hundred bytes of deflate, which can expand at most 1032:1.
  for (std::size_t i : {16u, 20u})
    file[i] = 0, file[i + 1] = 0, file[i + 2] = 0xea, file[i + 3] = 0x60;
  CHECK_THROWS_WITH(decode(file, DecodeLimits{0, 0}), Catch::Contains("cannot hold"));
  CHECK_THROWS_WITH(decode(file), Catch::Contains("limit of 134.2 megapixels"));
}

TEST_CASE("a valid interlaced PNG with an empty IDAT chunk reads whole", "[png]") {
  // stb_image copied from a NULL pointer here (UBSan); the file is valid: IDAT may be empty.
  const PngShape shape{37, 19, 8, PNG_COLOR_TYPE_RGB, true};
  auto rows = test_rows(shape, 6);
  const std::vector<std::uint8_t> plain = write_with_libpng(shape, rows);
  std::vector<test::PngChunk> chunks = test::png_chunks(plain);
  const auto first_idat = std::find_if(chunks.begin(), chunks.end(),
                                       [](const test::PngChunk& c) { return c.type == "IDAT"; });
  REQUIRE(first_idat != chunks.end());
  chunks.insert(first_idat, test::PngChunk{"IDAT", {}});
  const DecodedImage read = decode(test::png_file(chunks));
  CHECK(read.image.get<Image>().pixels == decode(plain).image.get<Image>().pixels);
}

TEST_CASE("an IDAT claiming 2 GiB or more and a deflate block of type 3 are IoErrors", "[png]") {
  // Both reached a NULL failure reason in stb_image, and a crash.
  const PngShape shape{16, 16, 8, PNG_COLOR_TYPE_RGB};
  auto rows = test_rows(shape, 7);
  const std::vector<std::uint8_t> plain = write_with_libpng(shape, rows);
  std::vector<test::PngChunk> chunks = test::png_chunks(plain);
  std::vector<std::uint8_t> huge = test::png_file({chunks[0]});  // signature and IHDR
  test::put32be(huge, 0x80000000u);
  huge.insert(huge.end(), {'I', 'D', 'A', 'T', 0x78, 0x01, 0, 0});
  CHECK_THROWS_AS(decode(huge), IoError);
  huge[huge.size() - 12] = 0xff;  // the length field's top byte: 0xff000000 bytes
  CHECK_THROWS_AS(decode(huge), IoError);
  for (auto& c : chunks) {
    if (c.type == "IDAT") c.data = {0x78, 0x01, 0x07, 0, 0, 0, 0, 0};  // final block, type 3
  }
  CHECK_THROWS_AS(decode(test::png_file(chunks)), IoError);
}
