// raw_tiff_test.cpp — uncompressed TIFFs read and written without a codec pass: the layout of our
// encoder's files and of files as other writers make them (either byte order, strips of one row
// or several, out of order or apart, the last one short) gives decode_tiff's image and metadata
// exactly; what needs decode_tiff's work (compressed, tiled, planar, inverted, premultiplied,
// bits reversed) or its words (strips that do not hold their rows, a file too short, an image
// too large) is left to it; and the raster's rows between libtiff's header and directory are
// encode_tiff's file, byte for byte, EXIF included.
#include <catch2/catch.hpp>

#include <string>

#include "codecs/image_decode.hpp"
#include "codecs/image_encode.hpp"
#include "codecs/raw_samples.hpp"
#include "codecs/tiff_samples.hpp"
#include "support/raw_files.hpp"
#include "support/reference_blur.hpp"
#include "support/test_bytes.hpp"
#include "support/test_exif.hpp"
#include "support/test_icc.hpp"

using namespace gpublur;

namespace {

using test::Bytes;
using test::TiffSpec;

AnyImage image_of(int width, int height, int channels, int bits, std::uint32_t seed) {
  if (bits == 16) return AnyImage(test::random_image16(width, height, channels, seed));
  return AnyImage(test::random_image(width, height, channels, seed));
}

Bytes tiff_of(const TiffSpec& spec, const AnyImage& image) {
  return image.visit([&](const auto& raster) { return test::tiff_as_written(spec, raster); });
}

EncodeOptions uncompressed() {
  EncodeOptions o;
  o.tiff_compression = TiffCompression::kNone;
  return o;
}

std::string samples_difference(const AnyImage& a, const AnyImage& b) {
  if (a.sample_format() != b.sample_format()) return "sample formats";
  if (a.bits() == 16)
    return test::first_difference(a.get<Image16>().pixels, b.get<Image16>().pixels);
  return test::first_difference(a.get<Image>().pixels, b.get<Image>().pixels);
}

// The raw read of `file` is decode_image's: samples, metadata, compression.
void check_reads_as_decoder(const Bytes& file) {
  const std::optional<RawLayout> layout = raw_layout(file.data(), file.size(), file.size(), {});
  REQUIRE(layout);
  CHECK(layout->format == ImageFormat::kTiff);
  const DecodedImage read = test::read_by_layout(file, *layout);
  const DecodedImage decoded = decode_image(file, "x.tif");
  CHECK(read.format == decoded.format);
  CHECK(read.width() == decoded.width());
  CHECK(read.height() == decoded.height());
  CHECK(read.channels() == decoded.channels());
  CHECK(samples_difference(read.image, decoded.image) == "");
  CHECK(read.metadata.icc == decoded.metadata.icc);
  CHECK(read.metadata.xmp == decoded.metadata.xmp);
  CHECK(read.metadata.exif == decoded.metadata.exif);
  REQUIRE(read.metadata.density.has_value() == decoded.metadata.density.has_value());
  if (decoded.metadata.density) CHECK(*read.metadata.density == *decoded.metadata.density);
  CHECK(read.tiff_compression == TiffCompression::kNone);
  CHECK(decoded.tiff_compression == TiffCompression::kNone);
}

bool declined(const Bytes& file, const DecodeLimits& limits = {}) {
  return !raw_layout(file.data(), file.size(), file.size(), limits);
}

// The metadata a TIFF keeps, in the combinations tested: none; ICC, XMP and density; EXIF of
// either byte order (with an Orientation of its own); all of them.
std::vector<Metadata> metadata_kinds() {
  Metadata rich;
  rich.icc = test::test_icc_profile(600);
  rich.xmp = test::xmp_packet("<x:xmpmeta xmlns:x='adobe:ns:meta/'/>");
  rich.density = Density{300, 150, Density::Unit::kInch};
  Metadata exif;
  exif.exif = test::camera_exif(false);
  Metadata exif_big;
  exif_big.exif = test::camera_exif(true);
  exif_big.density = Density{118, 118, Density::Unit::kCentimetre};
  Metadata all = rich;
  all.exif = test::camera_exif(true);
  return {{}, rich, exif, exif_big, all};
}

// Calls check(image, metadata, file) for images of 8 and 16 bits, 1-4 channels, each kind of
// metadata, and shapes of one strip and of several (13 x 200 of 4 x 2 bytes: 78 rows a strip, the
// last one short; 3 x 3 gray: a strip of an odd byte count, the directory after a byte of
// padding), `file` encode_image's uncompressed TIFF of them.
template <typename Check>
void for_each_encoded(std::uint32_t seed, const Check& check) {
  const std::vector<Metadata> metadata = metadata_kinds();
  for (const int bits : {8, 16}) {
    for (const int channels : {1, 2, 3, 4}) {
      for (const auto& [width, height] : {std::pair{1, 1}, {3, 3}, {13, 200}}) {
        for (std::size_t m = 0; m < metadata.size(); ++m) {
          CAPTURE(bits, channels, width, height, m);
          const AnyImage image = image_of(width, height, channels, bits, seed);
          check(image, metadata[m],
                encode_image(image, ImageFormat::kTiff, uncompressed(), metadata[m]));
        }
      }
    }
  }
}

}  // namespace

TEST_CASE("our encoder's uncompressed TIFFs read raw as decode_tiff reads them",
          "[codec][raw][tiff]") {
  for_each_encoded(11, [](const AnyImage&, const Metadata&, const Bytes& file) {
    check_reads_as_decoder(file);
  });
}

TEST_CASE("TIFFs as other writers make them read raw as decode_tiff reads them",
          "[codec][raw][tiff]") {
  std::vector<std::pair<std::string, TiffSpec>> specs;
  for (const bool big : {false, true}) {
    TiffSpec s;
    s.big = big;
    specs.push_back({"two rows a strip", s});
    s.rows_per_strip = 1;
    specs.push_back({"a row a strip", s});
    s.rows_per_strip = 3, s.reversed = true;
    specs.push_back({"three rows a strip, last first", s});
    s.gap = 3;
    specs.push_back({"strips apart, odd gaps", s});
    s = TiffSpec{};
    s.big = big, s.rows_per_strip = 7;
    specs.push_back({"one strip of all rows", s});
    s.rows_per_strip = 1000;
    specs.push_back({"rows per strip past the height", s});
    s = TiffSpec{};
    s.big = big, s.photometric = -2, s.extra = -1;
    specs.push_back({"no Photometric, no ExtraSamples", s});
    s = TiffSpec{};
    s.big = big, s.extra = 0, s.fill_order = 1, s.sample_format = 1, s.orientation = 3;
    specs.push_back(
        {"unspecified extra samples, the default fill order and sample format, "
         "upside down",
         s});
    s = TiffSpec{};
    s.big = big, s.icc = test::test_icc_profile(300), s.x_dpi = 300, s.y_dpi = 72;
    specs.push_back({"ICC profile and density", s});
  }
  for (const auto& [name, spec] : specs) {
    for (const int bits : {8, 16}) {
      for (const int channels : {1, 2, 3, 4}) {
        CAPTURE(name, bits, channels);
        check_reads_as_decoder(tiff_of(spec, image_of(5, 7, channels, bits, 12)));
      }
    }
  }
  // One strip of 20,800 bytes, which libtiff reads as strips of 8 KB or so (its "strip chop").
  TiffSpec one;
  one.rows_per_strip = 200;
  check_reads_as_decoder(tiff_of(one, image_of(13, 200, 4, 16, 13)));
}

TEST_CASE("a raw TIFF's 16-bit samples are swapped where the file's byte order is not the host's",
          "[codec][raw][tiff]") {
  const Image16 image = test::random_image16(4, 3, 3, 2);
  for (const bool big : {false, true}) {
    TiffSpec s;
    s.big = big;
    const Bytes file = test::tiff_as_written(s, image);
    const std::optional<RawLayout> layout = raw_layout(file.data(), file.size(), file.size(), {});
    REQUIRE(layout);
    CHECK(layout->swapped == (big == (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)));
    CHECK(test::read_by_layout(file, *layout).image.get<Image16>().pixels == image.pixels);
  }
}

TEST_CASE("what decode_tiff must convert, or would refuse, is left to it", "[codec][raw][tiff]") {
  const AnyImage rgb = image_of(5, 7, 3, 8, 4);
  const AnyImage gray_alpha = image_of(5, 7, 2, 8, 4);
  const AnyImage rgba16 = image_of(5, 7, 4, 16, 4);
  const Bytes good = tiff_of({}, rgb);
  REQUIRE_FALSE(declined(good));
  // Compressed: Deflate as our encoder writes it; a compression tag on stored bytes (LZW).
  CHECK(declined(encode_image(rgb, ImageFormat::kTiff)));
  TiffSpec s;
  s.compression = 5;
  CHECK(declined(tiff_of(s, rgb)));
  // Tiled; planes apart (even of one channel, which decode_tiff copies a plane at a time).
  s = TiffSpec{};
  s.tiled = true;
  CHECK(declined(tiff_of(s, rgb)));
  s = TiffSpec{};
  s.planar = 2;
  CHECK(declined(tiff_of(s, rgb)));
  CHECK(declined(tiff_of(s, image_of(5, 7, 1, 8, 4))));
  // Min-is-white (inverted), associated alpha (divided back), bits in the other order
  // (reversed), signed or floating-point samples, palette, CMYK: decode_tiff's image is not the
  // stored samples.
  s = TiffSpec{};
  s.photometric = 0;
  CHECK(declined(tiff_of(s, image_of(5, 7, 1, 8, 4))));
  CHECK(declined(tiff_of(s, gray_alpha)));
  s = TiffSpec{};
  s.extra = 1;
  CHECK(declined(tiff_of(s, gray_alpha)));
  CHECK(declined(tiff_of(s, rgba16)));
  CHECK(samples_difference(decode_image(tiff_of(s, gray_alpha), "x.tif").image, gray_alpha) != "");
  s = TiffSpec{};
  s.fill_order = 2;
  CHECK(declined(tiff_of(s, rgb)));
  s = TiffSpec{};
  s.sample_format = 2;
  CHECK(declined(tiff_of(s, rgb)));
  s.sample_format = 3;
  CHECK(declined(tiff_of(s, rgba16)));
  s = TiffSpec{};
  s.photometric = 3;  // without a colour map: min-is-black to libtiff, and so to the raw read
  check_reads_as_decoder(tiff_of(s, image_of(5, 7, 1, 8, 4)));
  s.photometric = 5;
  CHECK(declined(tiff_of(s, image_of(5, 7, 4, 8, 4))));
  // Strips whose byte counts are not their rows' (the last one short by a byte, or long), and a
  // file that ends before its last strip does.
  for (const std::int64_t delta : {-1, 1, 2}) {
    s = TiffSpec{};
    s.last_count_delta = delta;
    CHECK(declined(tiff_of(s, rgb)));
  }
  s = TiffSpec{};
  s.rows_per_strip = 7;  // one strip, moved to end a byte past the file's end
  s.first_offset_delta = static_cast<std::int64_t>(good.size()) - (8 + 5 * 7 * 3) + 1;
  const Bytes past_end = tiff_of(s, rgb);
  CHECK(declined(past_end));
  CHECK_THROWS(decode_image(past_end, "x.tif"));
  // Past the limits (decode_tiff's message).
  for (const DecodeLimits limits : {DecodeLimits{5 * 7 - 1, 0}, DecodeLimits{0, 5 * 7 * 3 - 1}}) {
    CHECK(declined(good, limits));
    CHECK_THROWS(decode_image(good, "x.tif", limits));
  }
  CHECK_FALSE(declined(good, DecodeLimits{5 * 7, 5 * 7 * 3}));
  // A directory beyond the bytes given; BigTIFF; not a TIFF.
  CHECK(!raw_layout(good.data(), good.size() - 8, good.size(), {}));
  Bytes big_tiff = good;
  big_tiff[2] = 43;
  CHECK(declined(big_tiff));
  CHECK(declined(Bytes(good.begin(), good.begin() + 7)));
}

TEST_CASE("a raw TIFF's header, the image's rows and its directory are encode_tiff's file",
          "[codec][raw][tiff]") {
  for_each_encoded(7, [](const AnyImage& image, const Metadata& metadata, const Bytes& expected) {
    AnyImage raw = image;
    const std::optional<RawFile> file =
        raw_file(raw, ImageFormat::kTiff, metadata, TiffCompression::kNone);
    REQUIRE(file);
    CHECK(test::first_difference(test::written(*file), expected) == "");
    CHECK(samples_difference(raw, image) == "");  // written as it is: nothing reordered
    // The samples are borrowed: one piece, the raster's own bytes.
    REQUIRE(file->rows.size() == 1);
    CHECK(file->rows[0].data == raw.data());
    CHECK(file->rows[0].size == raw.byte_count());
  });
}

TEST_CASE("a raw TIFF read and written again is its file", "[codec][raw][tiff]") {
  for (const Metadata& m : metadata_kinds()) {
    for (const int bits : {8, 16}) {
      const Bytes file =
          encode_image(image_of(9, 300, 3, bits, 8), ImageFormat::kTiff, uncompressed(), m);
      const std::optional<RawLayout> layout = raw_layout(file.data(), file.size(), file.size(), {});
      REQUIRE(layout);
      DecodedImage read = test::read_by_layout(file, *layout);
      const std::optional<RawFile> again =
          raw_file(read.image, ImageFormat::kTiff, read.metadata, read.tiff_compression);
      REQUIRE(again);
      CHECK(test::first_difference(test::written(*again), file) == "");
    }
  }
}

TEST_CASE("a TIFF output the encoder compresses or cannot hold is left to it, untouched",
          "[codec][raw][tiff]") {
  const AnyImage image = image_of(3, 2, 3, 8, 9);
  for (const TiffCompression c : {TiffCompression::kAuto, TiffCompression::kDeflate}) {
    AnyImage raw = image;
    CHECK_FALSE(raw_file(raw, ImageFormat::kTiff, {}, c));
    CHECK(samples_difference(raw, image) == "");
  }
  CHECK_FALSE(stored_raw(ImageFormat::kTiff, 8, 3));
  CHECK(stored_raw(ImageFormat::kTiff, 16, 1, TiffCompression::kNone));
  CHECK_FALSE(stored_raw(ImageFormat::kTiff, 32, 3, TiffCompression::kNone));
  ImageF hdr = make_raster<float>(2, 2, 3);
  AnyImage floats(std::move(hdr));
  CHECK_FALSE(raw_file(floats, ImageFormat::kTiff, {}, TiffCompression::kNone));
}
