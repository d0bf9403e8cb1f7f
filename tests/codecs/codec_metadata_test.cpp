// codec_metadata_test.cpp — what travels with the pixels: ICC profiles, EXIF (a camera's included),
// density and XMP through every format that holds them, and a note where the output cannot.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "codecs/image_decode.hpp"
#include "codecs/image_encode.hpp"
#include "support/reference_blur.hpp"
#include "support/test_bytes.hpp"
#include "support/test_exif.hpp"
#include "support/test_icc.hpp"

using namespace gpublur;

namespace {

using test::Bytes;

DecodedImage decode(const Bytes& file, const std::string& name = "x") {
  return decode_image(file, name, DecodeLimits{});
}

}  // namespace

TEST_CASE("ICC profile, EXIF and density survive PNG, JPEG, WebP and TIFF", "[codec][metadata]") {
  Metadata m;
  m.icc = test::test_icc_profile(5000);
  m.exif = {'I', 'I', 42, 0, 8, 0, 0, 0, 1, 0, 0x12, 1, 3, 0, 1, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0};
  m.density = Density{300, 300, Density::Unit::kInch};
  const Image in = test::random_image(24, 16, 3, 13);
  for (ImageFormat format :
       {ImageFormat::kPng, ImageFormat::kJpeg, ImageFormat::kWebp, ImageFormat::kTiff}) {
    CAPTURE(format_name(format));
    const DecodedImage back = decode(encode_image(in, format, {}, m));
    CHECK(back.metadata.icc == m.icc);
    if (format_traits(format).exif) CHECK(back.metadata.exif == m.exif);
    if (format_traits(format).density) {
      REQUIRE(back.metadata.density);
      CHECK(std::lround(back.metadata.density->x *
                        (back.metadata.density->unit == Density::Unit::kCentimetre ? 2.54 : 1)) ==
            300);
    }
    // And through a second encode, byte for byte the same.
    CHECK(decode(encode_image(back.image, format, {}, back.metadata)).metadata.icc == m.icc);
  }
  CHECK(metadata_not_kept(m, ImageFormat::kTga) ==
        std::vector<std::string>{"ICC profile not kept: tga cannot hold it",
                                 "EXIF not kept: tga cannot hold it",
                                 "density not kept: tga cannot hold it"});
  CHECK(metadata_not_kept(m, ImageFormat::kPng).empty());
}

TEST_CASE("ICC profiles up to what a JPEG holds go through every format; larger ones are noted",
          "[codec][metadata]") {
  // 255 APP2 segments of 65,519 bytes: JPEG's most. One byte more once made a JPEG of 256
  // segments with wrapped sequence numbers (a corrupt profile), and a PNG gpublur's reader called
  // damaged.
  const Image in = test::random_image(8, 8, 3, 3);
  Metadata largest;
  largest.icc = test::test_icc_profile(kMaxIccBytes);
  Metadata larger;
  larger.icc = test::test_icc_profile(kMaxIccBytes + 1);
  for (ImageFormat format :
       {ImageFormat::kPng, ImageFormat::kJpeg, ImageFormat::kWebp, ImageFormat::kTiff}) {
    CAPTURE(format_name(format));
    CHECK(decode(encode_image(in, format, {}, largest)).metadata.icc == largest.icc);
    CHECK(metadata_not_kept(largest, format).empty());
    CHECK(decode(encode_image(in, format, {}, larger)).metadata.icc.empty());
    CHECK(metadata_not_kept(larger, format) ==
          std::vector<std::string>{"ICC profile not kept: 16707346 bytes, more than the 16707345 "
                                   "a JPEG holds, the most gpublur carries"});
  }
  // A PNG from another writer with a larger profile (20 MB; past 16 MiB it was "damaged") reads,
  // profile and all (the output leaves it out, as above).
  const Bytes huge = test::test_icc_profile(20000000);
  std::vector<test::PngChunk> chunks = test::png_chunks(encode_image(in, ImageFormat::kPng));
  Bytes body = {'I', 'C', 'C', 0, 0};
  const Bytes zlib = test::zlib_stored(huge);
  body.insert(body.end(), zlib.begin(), zlib.end());
  chunks.insert(chunks.begin() + 1, test::PngChunk{"iCCP", body});
  CHECK(decode(test::png_file(chunks)).metadata.icc == huge);
}

TEST_CASE("XMP goes through PNG, JPEG, WebP and TIFF; formats without it say so",
          "[codec][metadata]") {
  // Dropped from every output before, JPEG to JPEG too, and --verbose said nothing.
  const Image in = test::random_image(16, 12, 3, 21);
  Metadata m;
  m.xmp = test::xmp_packet("a caption");
  m.exif = test::camera_exif(false);
  for (ImageFormat format :
       {ImageFormat::kJpeg, ImageFormat::kPng, ImageFormat::kTiff, ImageFormat::kWebp,
        ImageFormat::kJpeg, ImageFormat::kTiff, ImageFormat::kPng, ImageFormat::kWebp}) {
    CAPTURE(format_name(format));
    const Bytes file = encode_image(in, format, {}, m);
    if (format == ImageFormat::kWebp) CHECK((file.at(20) & 4) != 0);  // VP8X's XMP flag
    const DecodedImage back = decode(file);
    CHECK(back.metadata.xmp == m.xmp);
    CHECK_FALSE(back.metadata.exif.empty());  // beside EXIF, which JPEG keeps in APP1 too
    CHECK(metadata_not_kept(m, format).empty());
    m = back.metadata;
  }
  for (ImageFormat format : {ImageFormat::kBmp, ImageFormat::kTga, ImageFormat::kPnm}) {
    const std::vector<std::string> lost = metadata_not_kept(m, format);
    CHECK(std::count(lost.begin(), lost.end(),
                     "XMP not kept: " + std::string(format_name(format)) + " cannot hold it") == 1);
  }
  // A packet longer than one APP1 segment (Extended XMP, which gpublur does not write): left out
  // of a JPEG, and said; kept by the others.
  Metadata large;
  large.xmp = test::xmp_packet(std::string(70000, 'x'));
  CHECK(decode(encode_image(in, ImageFormat::kJpeg, {}, large)).metadata.xmp.empty());
  CHECK(metadata_not_kept(large, ImageFormat::kJpeg) ==
        std::vector<std::string>{
            "XMP not kept: longer than a JPEG APP1 segment holds (65504 bytes)"});
  CHECK(decode(encode_image(in, ImageFormat::kPng, {}, large)).metadata.xmp == large.xmp);
  // Another writer's compressed iTXt reads too.
  std::vector<test::PngChunk> chunks = test::png_chunks(encode_image(in, ImageFormat::kPng));
  const std::string header("XML:com.adobe.xmp\0\1\0en\0\0", 24);
  Bytes body(header.begin(), header.end());
  const Bytes zlib = test::zlib_stored(m.xmp);
  body.insert(body.end(), zlib.begin(), zlib.end());
  chunks.insert(chunks.begin() + 1, test::PngChunk{"iTXt", body});
  CHECK(decode(test::png_file(chunks)).metadata.xmp == m.xmp);
}

TEST_CASE("a camera's EXIF goes through TIFF's directories and back", "[codec][metadata]") {
  const Image in = test::random_image(20, 12, 3, 14);
  const Bytes little = test::camera_exif(false), big = test::camera_exif(true);
  Metadata m;
  m.exif = little;
  // In TIFF's byte order and canonical layout: byte for byte, through any number of round trips.
  const DecodedImage once = decode(encode_image(in, ImageFormat::kTiff, {}, m));
  CHECK(once.metadata.exif == little);
  CHECK(once.image.get<Image>().pixels == in.pixels);  // Orientation 6 is kept, not applied
  CHECK(decode(encode_image(in, ImageFormat::kTiff, {}, once.metadata)).metadata.exif == little);
  // Big-endian, as many cameras write it: every tag and value, in the TIFF's byte order.
  m.exif = big;
  CHECK(decode(encode_image(in, ImageFormat::kTiff, {}, m)).metadata.exif == little);
  // Through every format that holds EXIF, in turn, and back.
  for (ImageFormat format : {ImageFormat::kJpeg, ImageFormat::kPng, ImageFormat::kWebp,
                             ImageFormat::kTiff, ImageFormat::kPng}) {
    CAPTURE(format_name(format));
    const Bytes expected = format == ImageFormat::kTiff ? little : m.exif;
    m.exif = decode(encode_image(in, format, {}, m)).metadata.exif;
    CHECK(m.exif == expected);
  }
  // What a TIFF cannot keep is named for --verbose.
  m.exif = test::camera_exif(false, true);
  CHECK(metadata_not_kept(m, ImageFormat::kTiff) ==
        std::vector<std::string>{"EXIF thumbnail not kept: tiff cannot hold it"});
  CHECK(decode(encode_image(in, ImageFormat::kTiff, {}, m)).metadata.exif == little);
  m.exif = {'I', 'I', 42, 0, 0xff, 0xff, 0, 0};  // a first directory past the end
  CHECK(metadata_not_kept(m, ImageFormat::kTiff) ==
        std::vector<std::string>{"EXIF (unreadable) not kept: tiff cannot hold it"});
  CHECK(decode(encode_image(in, ImageFormat::kTiff, {}, m)).metadata.exif.empty());
  CHECK(metadata_not_kept(m, ImageFormat::kPng).empty());  // a block is copied as it is
}
