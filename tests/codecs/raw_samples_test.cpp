// raw_samples_test.cpp — raw files read and written without a codec pass: the layout of a PNM's
// samples gives decode_pnm's raster sample for sample, a header that is not whole or a kind that
// needs decoding is left to the decoder, and the header with the image's bytes is encode_pnm's file.
#include <catch2/catch.hpp>

#include <string>

#include "codecs/image_decode.hpp"
#include "codecs/image_encode.hpp"
#include "codecs/raw_samples.hpp"
#include "support/raw_files.hpp"
#include "support/reference_blur.hpp"
#include "support/test_bytes.hpp"

using namespace gpublur;

namespace {

using test::Bytes;

Bytes text(const std::string& s) { return Bytes(s.begin(), s.end()); }

AnyImage read_by_layout(const Bytes& file, const RawLayout& layout) {
  return test::read_by_layout(file, layout).image;
}

template <typename Sample>
const Raster<Sample>& raster(const AnyImage& image) {
  return image.get<Raster<Sample>>();
}

}  // namespace

TEST_CASE("a raw PNM's layout reads as its decoder does, every kind and depth", "[codec][raw]") {
  for (const int channels : {1, 2, 3, 4}) {
    for (const int bits : {8, 16}) {
      CAPTURE(channels, bits);
      AnyImage image = bits == 8 ? AnyImage(test::random_image(13, 7, channels, 5))
                                 : AnyImage(test::random_image16(13, 7, channels, 6));
      const Bytes file = image.visit([](const auto& r) { return encode_image(r, ImageFormat::kPnm); });
      const std::optional<RawLayout> layout = raw_layout(file.data(), file.size(), file.size(), {});
      REQUIRE(layout);
      CHECK(layout->width == 13);
      CHECK(layout->height == 7);
      CHECK(layout->channels == channels);
      CHECK(layout->bits == bits);
      CHECK(layout->offset + layout->bytes() == file.size());
      const AnyImage read = read_by_layout(file, *layout);
      const DecodedImage decoded = decode_image(file, "x.pnm");
      REQUIRE(read.sample_format() == decoded.image.sample_format());
      if (bits == 8) {
        CHECK(raster<std::uint8_t>(read).pixels == raster<std::uint8_t>(decoded.image).pixels);
      } else {
        CHECK(raster<std::uint16_t>(read).pixels == raster<std::uint16_t>(decoded.image).pixels);
      }
    }
  }
}

TEST_CASE("a header with comments and trailing bytes after the samples", "[codec][raw]") {
  Bytes file = text("P5\n# a comment\n3 # another\n2\n255\n");
  const std::size_t offset = file.size();
  for (int i = 0; i < 6; ++i) file.push_back(static_cast<std::uint8_t>(10 * i));
  file.push_back('x');  // after the samples: ignored by the decoder too
  const std::optional<RawLayout> layout = raw_layout(file.data(), file.size(), file.size(), {});
  REQUIRE(layout);
  CHECK(layout->offset == offset);
  CHECK(raster<std::uint8_t>(read_by_layout(file, *layout)).pixels ==
        raster<std::uint8_t>(decode_image(file, "x").image).pixels);
}

TEST_CASE("what needs a decoder is left to it", "[codec][raw]") {
  const Bytes p6 = text("P6\n2 1\n255\nabcdef");
  REQUIRE(raw_layout(p6.data(), p6.size(), p6.size(), {}));
  // A header longer than the bytes looked at (a truncated look), or a file shorter than its
  // samples: the decoder reads it and says what is wrong.
  CHECK_FALSE(raw_layout(p6.data(), 6, p6.size(), {}));
  CHECK_FALSE(raw_layout(p6.data(), p6.size(), p6.size() - 1, {}));
  // Samples that need scaling or unpacking, ASCII, and headers the decoder refuses.
  for (const char* s :
       {"P6\n2 1\n1000\nabcdefghijkl", "P6\n2 1\n15\nabcdef", "P3\n1 1\n255\n1 2 3\n",
        "P4\n8 1\n\xff", "P5\n0 1\n255\n", "P7\nWIDTH 1\nHEIGHT 1\nDEPTH 5\nMAXVAL 255\nENDHDR\nabcde",
        "P6\n2 1\n255abcdef"}) {
    const Bytes b = text(s);  // (no NUL among them)
    CAPTURE(s);
    CHECK_FALSE(raw_layout(b.data(), b.size(), b.size(), {}));
  }
  // Not a PNM at all.
  const Bytes png = encode_image(test::random_image(2, 2, 3, 1), ImageFormat::kPng);
  CHECK_FALSE(raw_layout(png.data(), png.size(), png.size(), {}));
  // Past --max-pixels: the decoder's message.
  CHECK_FALSE(raw_layout(p6.data(), p6.size(), p6.size(), DecodeLimits{1, 0}));
}

TEST_CASE("a raw header and the image's bytes are encode_pnm's file", "[codec][raw]") {
  for (const int channels : {1, 2, 3, 4}) {
    CAPTURE(channels);
    const Image image8 = test::random_image(9, 4, channels, 3);
    const Image16 image16 = test::random_image16(9, 4, channels, 4);
    for (AnyImage image : {AnyImage(image8), AnyImage(image16)}) {
      const Bytes expected =
          image.visit([](const auto& r) { return encode_image(r, ImageFormat::kPnm); });
      const std::optional<RawFile> file = raw_file(image, ImageFormat::kPnm, {});
      REQUIRE(file);
      CHECK(file->rows.size() == 1);  // the samples as one piece
      CHECK(test::written(*file) == expected);
    }
  }
  AnyImage image = test::random_image(2, 2, 3, 1);
  CHECK_FALSE(raw_file(image, ImageFormat::kPng, {}));
  AnyImage hdr = make_raster<float>(2, 2, 3);
  CHECK_FALSE(raw_file(hdr, ImageFormat::kPnm, {}));
}
