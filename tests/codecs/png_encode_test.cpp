// png_encode_test.cpp — the PNG writer, read back by libpng, which (unlike stb_image) checks every
// chunk's CRC and the zlib stream's Adler-32.
#include <catch2/catch.hpp>

#include <png.h>
#include <zlib.h>

#include <cstring>
#include <set>
#include <string>

#include "base/errors.hpp"
#include "codecs/png_encode.hpp"
#include "support/reference_blur.hpp"
#include "support/test_bytes.hpp"
#include "support/test_icc.hpp"

using namespace gpublur;

namespace {

struct MemoryReader {
  const std::vector<std::uint8_t>* png;
  std::size_t pos;
};

void read_from_memory(png_structp png, png_bytep out, png_size_t size) {
  auto* reader = static_cast<MemoryReader*>(png_get_io_ptr(png));
  if (reader->pos + size > reader->png->size()) png_error(png, "read past the end");
  std::memcpy(out, reader->png->data() + reader->pos, size);
  reader->pos += size;
}

void quiet_error(png_structp png, png_const_charp) { png_longjmp(png, 1); }
void quiet_warning(png_structp, png_const_charp) {}

// Decodes with libpng's classic reader, no transformations but 16-bit samples into host order.
// Returns false on any libpng error (a bad CRC, a bad Adler-32, a short stream).
template <typename Sample>
bool decode_with_libpng(const std::vector<std::uint8_t>& file, Raster<Sample>& out) {
  MemoryReader reader{&file, 0};
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, nullptr, quiet_error, quiet_warning);
  png_infop info = png_create_info_struct(png);
  std::vector<png_bytep> rows(static_cast<std::size_t>(out.height));
  for (std::size_t y = 0; y < rows.size(); ++y)
    rows[y] = reinterpret_cast<png_bytep>(out.pixels.data() + y * out.row_samples());
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_read_struct(&png, &info, nullptr);
    return false;
  }
  png_set_read_fn(png, &reader, read_from_memory);
  png_read_info(png, info);
  const bool shape = png_get_image_width(png, info) == static_cast<png_uint_32>(out.width) &&
                     png_get_image_height(png, info) == static_cast<png_uint_32>(out.height) &&
                     png_get_channels(png, info) == out.channels &&
                     png_get_bit_depth(png, info) == 8 * sizeof(Sample);
  if (!shape) png_error(png, "unexpected shape or depth");
  if (sizeof(Sample) == 2) png_set_swap(png);
  png_read_image(png, rows.data());
  png_read_end(png, info);
  png_destroy_read_struct(&png, &info, nullptr);
  return true;
}

template <typename Sample>
Raster<Sample> read_with_libpng(const std::vector<std::uint8_t>& png, const Raster<Sample>& like) {
  Raster<Sample> out = make_raster<Sample>(like.width, like.height, like.channels);
  REQUIRE(decode_with_libpng(png, out));
  return out;
}

// The raw PNG facts: bit depth (IHDR byte 24) and how many IDAT chunks follow.
int bit_depth(const std::vector<std::uint8_t>& png) { return png.at(24); }

int idat_chunks(const std::vector<std::uint8_t>& png) {
  int count = 0;
  for (std::size_t pos = 8; pos + 8 <= png.size();) {
    const std::size_t length = std::size_t{png[pos]} << 24 | std::size_t{png[pos + 1]} << 16 |
                               std::size_t{png[pos + 2]} << 8 | png[pos + 3];
    if (std::memcmp(&png[pos + 4], "IDAT", 4) == 0) ++count;
    pos += 12 + length;
  }
  return count;
}

// The filter type byte of each row of an 8-bit gray PNG with one IDAT chunk.
std::vector<int> row_filters(const std::vector<std::uint8_t>& png, int width, int height) {
  std::vector<std::uint8_t> idat;
  for (std::size_t pos = 8; pos + 8 <= png.size();) {
    const std::size_t length = std::size_t{png[pos]} << 24 | std::size_t{png[pos + 1]} << 16 |
                               std::size_t{png[pos + 2]} << 8 | png[pos + 3];
    if (std::memcmp(&png[pos + 4], "IDAT", 4) == 0)
      idat.insert(idat.end(), png.begin() + static_cast<long>(pos + 8),
                  png.begin() + static_cast<long>(pos + 8 + length));
    pos += 12 + length;
  }
  const auto row = static_cast<std::size_t>(width) + 1;
  std::vector<std::uint8_t> raw(row * static_cast<std::size_t>(height));
  uLongf size = static_cast<uLongf>(raw.size());
  REQUIRE(uncompress(raw.data(), &size, idat.data(), static_cast<uLong>(idat.size())) == Z_OK);
  std::vector<int> filters;
  for (std::size_t y = 0; y < static_cast<std::size_t>(height); ++y)
    filters.push_back(raw[y * row]);
  return filters;
}

}  // namespace

TEST_CASE("8-bit PNG at every level reads back exactly through libpng", "[png]") {
  for (int channels = 1; channels <= 4; ++channels) {
    Image in = test::random_image(203, 97, channels, static_cast<std::uint32_t>(30 + channels));
    for (std::size_t i = 0; i < in.pixels.size(); i += 2)  // half smooth, so matches happen
      in.pixels[i] = static_cast<std::uint8_t>(i / 512);
    for (int level : {0, 1, 2, 6, 12}) {
      CAPTURE(channels, level);
      const std::vector<std::uint8_t> png = encode_png(in, level);
      CHECK(bit_depth(png) == 8);
      CHECK(idat_chunks(png) == 1);
      CHECK(read_with_libpng(png, in).pixels == in.pixels);
    }
  }
}

TEST_CASE("16-bit PNG keeps every bit through libpng", "[png]") {
  for (int channels = 1; channels <= 4; ++channels) {
    CAPTURE(channels);
    const Image16 in = test::random_image16(61, 33, channels, static_cast<std::uint32_t>(channels));
    const std::vector<std::uint8_t> png = encode_png(in, 2);
    CHECK(bit_depth(png) == 16);
    CHECK(read_with_libpng(png, in).pixels == in.pixels);
  }
}

TEST_CASE("each row takes the filter that leaves it the smallest differences", "[png]") {
  // Bands of 8 rows, each drawn so that one of PNG's five filters predicts it exactly (or, for
  // noise, none does better than none). Before, every row was Paeth-filtered, which made files of
  // flat colours and outlines 4-6% larger than OpenCV's (tests/compare_peers.py holds that).
  const int w = 64, h = 40;
  Image image = make_image(w, h, 1);
  std::uint32_t seed = 12345;
  const auto noise = [&] {
    return static_cast<std::uint8_t>((seed = seed * 1103515245 + 12345) >> 24);
  };
  const auto at = [&](int x, int y) -> std::uint8_t& {
    return image.pixels[static_cast<std::size_t>(y * w + x)];
  };
  for (int y = 0; y < h; ++y) {
    const int band = y / 8;  // 0 none, 1 sub, 2 up, 3 average, 4 paeth
    const int offset = noise(), slope = 1 + noise() % 5;
    for (int x = 0; x < w; ++x) {
      const int left = x > 0 ? at(x - 1, y) : 0, above = y > 0 ? at(x, y - 1) : 0;
      const int above_left = x > 0 && y > 0 ? at(x - 1, y - 1) : 0;
      const int value = band == 0   ? noise()
                        : band == 1 ? offset + slope * x  // a ramp of its own: Sub leaves its slope
                        : band == 2 ? (y % 8 == 0 ? noise() : above)  // repeated rows: Up gives 0s
                        : band == 3 ? (x == 0 || y % 8 == 0 ? noise() : (left + above) / 2)
                                    : (x == 0 || y % 8 == 0 ? noise() : left + above - above_left);
      at(x, y) = static_cast<std::uint8_t>(value);
    }
  }
  const std::vector<std::uint8_t> png = encode_png(image, 1);
  const std::vector<int> filters = row_filters(png, w, h);
  for (int band = 1; band < 5; ++band) {
    CAPTURE(band);
    CHECK(filters[static_cast<std::size_t>(8 * band + 4)] == band);
  }
  CHECK(std::set<int>(filters.begin(), filters.end()).size() == 5);  // noise rows: None
  CHECK(read_with_libpng(png, image).pixels == image.pixels);
  const std::vector<int> stored = row_filters(encode_png(image, 0), w, h);
  CHECK(stored == std::vector<int>(static_cast<std::size_t>(h), 0));  // level 0: none at all
}

TEST_CASE("one-pixel images, and image data split into IDAT chunks of a MiB", "[png]") {
  const Image one = test::random_image(1, 1, 3, 5);
  CHECK(read_with_libpng(encode_png(one, 2), one).pixels == one.pixels);
  const Image noise = test::random_image(700, 600, 3, 6);  // about 1.26 MB that does not compress
  const std::vector<std::uint8_t> png = encode_png(noise, 1);
  CHECK(idat_chunks(png) == 2);
  CHECK(read_with_libpng(png, noise).pixels == noise.pixels);
}

TEST_CASE("higher levels are no larger; level 0 stores", "[png]") {
  Image in = test::random_image(320, 200, 3, 9);
  for (std::size_t i = 0; i < in.pixels.size(); ++i)
    if (i % 5) in.pixels[i] = static_cast<std::uint8_t>(i / 960);
  const std::size_t stored = encode_png(in, 0).size();
  const std::size_t fast = encode_png(in, 1).size();
  const std::size_t best = encode_png(in, 12).size();
  CHECK(stored > in.pixels.size());  // raw rows plus stored-block framing
  CHECK(fast < stored);
  CHECK(best <= fast);
}

TEST_CASE("the same pixels always give the same bytes", "[png]") {
  const Image in = test::random_image(257, 129, 4, 21);
  CHECK(encode_png(in, 2) == encode_png(in, 2));
}

TEST_CASE("a damaged stream is caught by libpng's checks", "[png]") {
  const Image in = test::random_image(40, 30, 3, 11);
  std::vector<std::uint8_t> png = encode_png(in, 2);
  Image out = make_image(40, 30, 3);
  REQUIRE(decode_with_libpng(png, out));
  png[png.size() / 2] ^= 0x10;  // inside an IDAT: its CRC no longer matches
  CHECK_FALSE(decode_with_libpng(png, out));
}

TEST_CASE("ICC profile, density, EXIF and XMP chunks read back through libpng", "[png]") {
  const Image in = test::random_image(20, 10, 3, 12);
  Metadata m;
  m.icc = test::test_icc_profile(3000);
  m.exif = {'M', 'M', 0, 42, 0, 0, 0, 8, 0, 0, 1, 2, 3};
  m.xmp = test::xmp_packet("through libpng");
  m.density = Density{300, 300, Density::Unit::kInch};
  const std::vector<std::uint8_t> file = encode_png(in, 2, m);
  MemoryReader reader{&file, 0};
  png_structp png =
      png_create_read_struct(PNG_LIBPNG_VER_STRING, nullptr, quiet_error, quiet_warning);
  png_infop info = png_create_info_struct(png);
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_read_struct(&png, &info, nullptr);
    FAIL("libpng refused the file");
  }
  png_set_read_fn(png, &reader, read_from_memory);
  png_read_info(png, info);
  png_charp name = nullptr;
  int compression = 0;
  png_bytep profile = nullptr;
  png_uint_32 profile_size = 0;
  REQUIRE(png_get_iCCP(png, info, &name, &compression, &profile, &profile_size));
  CHECK(std::vector<std::uint8_t>(profile, profile + profile_size) == m.icc);
  png_uint_32 x = 0, y = 0;
  int unit = 0;
  REQUIRE(png_get_pHYs(png, info, &x, &y, &unit));
  CHECK(x == 11811);  // 300 per inch, per metre
  CHECK(unit == PNG_RESOLUTION_METER);
  png_bytep exif = nullptr;
  png_uint_32 exif_size = 0;
  REQUIRE(png_get_eXIf_1(png, info, &exif_size, &exif));
  CHECK(std::vector<std::uint8_t>(exif, exif + exif_size) == m.exif);
  png_textp text = nullptr;
  int texts = 0;
  REQUIRE(png_get_text(png, info, &text, &texts) == 1);
  CHECK(std::string(text[0].key) == "XML:com.adobe.xmp");
  CHECK(text[0].compression == PNG_ITXT_COMPRESSION_NONE);
  CHECK(std::vector<std::uint8_t>(text[0].text, text[0].text + text[0].itxt_length) == m.xmp);
  png_destroy_read_struct(&png, &info, nullptr);
}

TEST_CASE("an impossible shape is an IoError", "[png]") {
  Image bad;
  bad.width = 0;
  bad.height = 3;
  bad.channels = 3;
  CHECK_THROWS_AS(encode_png(bad, 2), IoError);
}
