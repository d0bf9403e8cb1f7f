// jpeg_markers_test.cpp — what the GPU's JPEG path relies on, tested without a GPU: the metadata
// segments added to nvJPEG's files are libjpeg-turbo's to the byte, and the header facts that
// route a JPEG to the GPU or the CPU agree with the CPU's decoder.
#include <catch2/catch.hpp>

#include "base/errors.hpp"
#include "codecs/jpeg_codec.hpp"
#include "codecs/jpeg_markers.hpp"
#include "support/jpeg_variants.hpp"
#include "support/reference_blur.hpp"
#include "support/test_bytes.hpp"
#include "support/test_exif.hpp"
#include "support/test_icc.hpp"

using namespace gpublur;

namespace {

Metadata metadata_of_kind(int kind) {
  Metadata m;
  if (kind & 1) m.density = Density{300, 300, Density::Unit::kInch};
  if (kind & 2) m.exif = test::camera_exif(false);
  if (kind & 4) m.icc = test::test_icc_profile();
  if (kind & 8) m.icc = test::test_icc_profile(150000);  // three APP2 chunks
  if (kind & 16) m.density = Density{2, 1, Density::Unit::kNone};
  if (kind & 32) m.icc = test::test_icc_profile(kMaxIccBytes);      // 255 APP2 chunks: JPEG's most
  if (kind & 64) m.icc = test::test_icc_profile(kMaxIccBytes + 1);  // left out
  if (kind & 128) m.xmp = test::xmp_packet("in APP1, after EXIF");
  if (kind & 256) m.xmp = test::xmp_packet(std::string(kMaxJpegXmpBytes, 'x'));  // left out
  return m;
}

}  // namespace

TEST_CASE("metadata added to an encoder's JPEG is what libjpeg-turbo writes, byte for byte",
          "[jpeg][markers]") {
  const Image image = test::random_image(37, 21, 3, 5);
  for (const int kind :
       {0, 1, 2, 4, 8, 16, 1 | 2 | 4, 2 | 8 | 16, 32, 2 | 64, 128, 1 | 2 | 4 | 128, 2 | 256}) {
    CAPTURE(kind);
    Metadata m = metadata_of_kind(kind);
    const std::vector<std::uint8_t> plain = encode_jpeg(image, 90, ChromaSubsampling::k420, {});
    const std::vector<std::uint8_t> expected = encode_jpeg(image, 90, ChromaSubsampling::k420, m);
    // The plain file's own JFIF segment is replaced, as nvJPEG's header segments are.
    CHECK(with_jpeg_metadata(plain, m) == expected);
    // And the result reads back with the metadata.
    const DecodedImage back = decode_jpeg(expected.data(), expected.size(), DecodeLimits{});
    if (m.icc.size() > kMaxIccBytes) m.icc.clear();  // never 256 chunks, their numbers wrapped
    if (m.xmp.size() > kMaxJpegXmpBytes) m.xmp.clear();
    CHECK(back.metadata.icc == m.icc);
    CHECK(back.metadata.exif == m.exif);
    CHECK(back.metadata.xmp == m.xmp);
  }
}

TEST_CASE("metadata is not added to what is not a JPEG, or a JPEG whose segment runs past its end",
          "[jpeg][markers]") {
  CHECK_THROWS_AS(with_jpeg_metadata({0x89, 'P', 'N', 'G'}, {}), IoError);
  CHECK_THROWS_AS(with_jpeg_metadata({0xFF, 0xD8, 0xFF, 0xE0, 0x01, 0x00, 'J'}, {}), IoError);
}

TEST_CASE(
    "a JPEG's header facts agree with its decode, and route only what nvJPEG decodes as "
    "libjpeg-turbo does to the GPU",
    "[jpeg][facts]") {
  const Image rgb = test::random_image(64, 48, 3, 9);
  const Image gray = test::random_image(64, 48, 1, 9);
  struct Case {
    const char* name;
    const Image* image;
    test::JpegVariant variant;
    bool gpu;
  };
  const Case cases[] = {
      {"4:4:4", &rgb, {95, 1, 1}, true},
      {"4:2:2", &rgb, {95, 2, 1}, true},
      {"4:2:0", &rgb, {95, 2, 2}, true},
      {"gray", &gray, {95}, true},
      {"restart markers", &rgb, {95, 2, 2, false, 1}, true},
      {"4:4:0", &rgb, {95, 1, 2}, false},
      {"progressive", &rgb, {95, 2, 2, true}, false},
      {"CMYK", &rgb, {95, 1, 1, false, 0, true}, false},
      {"arithmetic", &rgb, {95, 2, 2, false, 0, false, true}, false},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    const std::vector<std::uint8_t> file = test::write_jpeg_variant(*c.image, c.variant);
    ChromaSubsampling decoded_subsampling{};
    const DecodedImage d =
        decode_jpeg(file.data(), file.size(), DecodeLimits{}, &decoded_subsampling);
    const JpegFacts f = read_jpeg_facts(file.data(), file.size(), DecodeLimits{});
    CHECK(f.gpu_decodable == c.gpu);
    CHECK(f.why_not.empty() == c.gpu);
    CHECK(f.width == d.width());
    CHECK(f.height == d.height());
    CHECK(f.channels == d.channels());
    CHECK(f.subsampling == decoded_subsampling);
  }
  SECTION("a file cut short goes to the CPU, which refuses it") {
    std::vector<std::uint8_t> file = test::write_jpeg_variant(rgb, {95, 2, 2});
    file.resize(file.size() - 200);
    const JpegFacts f = read_jpeg_facts(file.data(), file.size(), DecodeLimits{});
    CHECK_FALSE(f.gpu_decodable);
    CHECK(f.why_not == "no end of image (EOI)");
    CHECK_THROWS_AS(decode_jpeg(file.data(), file.size(), DecodeLimits{}), IoError);
  }
  SECTION("the header's checks are the decoder's: size limits, damaged headers") {
    const std::vector<std::uint8_t> file = test::write_jpeg_variant(rgb, {95, 1, 1});
    DecodeLimits small;
    small.max_pixels = 100;
    CHECK_THROWS_AS(read_jpeg_facts(file.data(), file.size(), small), Error);
    const std::vector<std::uint8_t> head(file.begin(), file.begin() + 40);
    CHECK_THROWS_WITH(read_jpeg_facts(head.data(), head.size(), DecodeLimits{}),
                      Catch::StartsWith("damaged JPEG: "));
  }
  SECTION("metadata as the decoder reads it") {
    Metadata m = metadata_of_kind(1 | 2 | 4);
    const std::vector<std::uint8_t> file = encode_jpeg(rgb, 90, ChromaSubsampling::k444, m);
    const DecodedImage d = decode_jpeg(file.data(), file.size(), DecodeLimits{});
    const JpegFacts f = read_jpeg_facts(file.data(), file.size(), DecodeLimits{});
    CHECK(f.metadata.icc == d.metadata.icc);
    CHECK(f.metadata.exif == d.metadata.exif);
    REQUIRE(f.metadata.density);
    CHECK(f.metadata.density->x == d.metadata.density->x);
  }
}
