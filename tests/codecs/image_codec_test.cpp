// image_codec_test.cpp — every format: round trips, gpublur's own decoders against stb_image on
// the same files, hand-made variants, decompression bombs refused. Metadata: codec_metadata_test;
// unreadable inputs and atomic writes: codec_files_test.
#include <catch2/catch.hpp>

#include <gif_lib.h>

#include <cmath>
#include <cstdlib>

#include "base/errors.hpp"
#include "codecs/image_decode.hpp"
#include "codecs/image_encode.hpp"
#include "support/reference_blur.hpp"
#include "support/stb_reference.hpp"
#include "support/test_bytes.hpp"
#include "support/test_icc.hpp"

using namespace gpublur;

namespace {

using test::Bytes;
using test::bmp;
using test::put16be;
using test::put16le;
using test::put32be;
using test::put32le;

DecodedImage decode(const Bytes& file, const std::string& name = "x",
                    const DecodeLimits& limits = {}) {
  return decode_image(file, name, limits);
}

// An image whose alpha (if any) is never 0 everywhere, so formats that drop an all-zero alpha
// channel keep it.
Image test_image(int w, int h, int channels, std::uint32_t seed) {
  Image image = test::random_image(w, h, channels, seed);
  if (channels == 2 || channels == 4) image.pixels[static_cast<std::size_t>(channels) - 1] = 200;
  return image;
}

// A GIF of one frame (left, top, width, height on a canvas of canvas_w x canvas_h), its pixel at
// (x, y) colour index (x + 2y) % 4 of 4 colours, index `transparent` transparent (-1: none).
struct GifFrame {
  int canvas_w = 8, canvas_h = 6, left = 0, top = 0, width = 8, height = 6;
  bool interlaced = false;
  int transparent = -1;
};
const GifColorType kGifColours[4] = {{10, 20, 30}, {255, 0, 0}, {0, 255, 0}, {0, 0, 255}};

Bytes gif_file(const GifFrame& f) {
  Bytes out;
  int error = 0;
  GifFileType* g = EGifOpen(
      &out,
      [](GifFileType* file, const GifByteType* data, int n) {
        auto* o = static_cast<Bytes*>(file->UserData);
        o->insert(o->end(), data, data + n);
        return n;
      },
      &error);
  REQUIRE(g);
  ColorMapObject* map = GifMakeMapObject(4, kGifColours);
  EGifSetGifVersion(g, true);
  EGifPutScreenDesc(g, f.canvas_w, f.canvas_h, 2, 0, map);
  if (f.transparent >= 0) {
    GifByteType control[4] = {1, 0, 0, static_cast<GifByteType>(f.transparent)};
    EGifPutExtension(g, GRAPHICS_EXT_FUNC_CODE, 4, control);
  }
  EGifPutImageDesc(g, f.left, f.top, f.width, f.height, f.interlaced, nullptr);
  std::vector<GifPixelType> line(static_cast<std::size_t>(f.width));
  const int passes[4][2] = {{0, 8}, {4, 8}, {2, 4}, {1, 2}};
  for (int p = 0; p < (f.interlaced ? 4 : 1); ++p) {
    for (int y = f.interlaced ? passes[p][0] : 0; y < f.height;
         y += f.interlaced ? passes[p][1] : 1) {
      for (int x = 0; x < f.width; ++x)
        line[static_cast<std::size_t>(x)] = static_cast<GifPixelType>((x + 2 * y) % 4);
      EGifPutLine(g, line.data(), f.width);
    }
  }
  EGifCloseFile(g, &error);
  GifFreeMapObject(map);
  return out;
}

void check_same_as_stb(const Bytes& file, const std::string& name) {
  CAPTURE(name);
  const DecodedImage ours = decode(file, name);
  const std::optional<AnyImage> stb = test::stb_decode(file, ours.channels());
  REQUIRE(stb);
  REQUIRE(stb->width() == ours.width());
  REQUIRE(stb->height() == ours.height());
  REQUIRE(stb->bits() == ours.image.bits());
  CHECK(*stb == ours.image);
}

}  // namespace

TEST_CASE("lossless formats round-trip every channel count", "[codec]") {
  for (ImageFormat format : {ImageFormat::kPng, ImageFormat::kTiff, ImageFormat::kBmp,
                             ImageFormat::kTga, ImageFormat::kPnm, ImageFormat::kWebp}) {
    for (int channels = 1; channels <= 4; ++channels) {
      CAPTURE(format_name(format), channels);
      const Image in = test_image(37, 23, channels, static_cast<std::uint32_t>(channels));
      EncodeOptions options;
      options.webp_lossless = true;
      const DecodedImage back =
          decode(encode_image(in, format, options), "x" + std::string(default_extension(format)));
      CHECK(back.format == format);
      REQUIRE(back.image.bits() == 8);
      const bool colour_only = format == ImageFormat::kBmp || format == ImageFormat::kWebp;
      CHECK(back.image.get<Image>().pixels ==
            (colour_only && channels <= 2 ? gray_to_colour(in) : in).pixels);
    }
  }
}

TEST_CASE("16-bit images round-trip through PNG, TIFF and PNM and stay 16-bit", "[codec]") {
  for (ImageFormat format : {ImageFormat::kPng, ImageFormat::kTiff, ImageFormat::kPnm}) {
    for (int channels = 1; channels <= 4; ++channels) {
      CAPTURE(format_name(format), channels);
      const Image16 in =
          test::random_image16(45, 21, channels, static_cast<std::uint32_t>(channels));
      const DecodedImage back = decode(encode_image(in, format));
      REQUIRE(back.image.bits() == 16);
      CHECK(back.image.get<Image16>().pixels == in.pixels);
    }
  }
  CHECK_THROWS_AS(encode_image(test::random_image16(4, 4, 3, 1), ImageFormat::kJpeg), UsageError);
}

TEST_CASE("TIFF's strips, predicted and compressed on several threads, read back whole",
          "[codec][tiff]") {
  // One pixel; one column (a strip of many rows); rows wider than a strip (one row a strip, the
  // predictor over thousands of samples); an odd last strip.
  for (const auto& [w, h] : {std::pair{1, 1}, std::pair{1, 3000}, std::pair{3001, 7},
                             std::pair{97, 4099}}) {
    for (int channels = 1; channels <= 4; ++channels) {
      CAPTURE(w, h, channels);
      const auto seed = static_cast<std::uint32_t>(w + h + channels);
      const Image in8 = test::random_image(w, h, channels, seed);
      const Image16 in16 = test::random_image16(w, h, channels, seed);
      CHECK(decode(encode_image(in8, ImageFormat::kTiff)).image.get<Image>().pixels == in8.pixels);
      CHECK(decode(encode_image(in16, ImageFormat::kTiff)).image.get<Image16>().pixels ==
            in16.pixels);
    }
  }
  // A smooth image, as photographs are: the predictor's differences compress.
  Image ramp = make_image(512, 256, 3);
  for (std::size_t i = 0; i < ramp.pixels.size(); ++i)
    ramp.pixels[i] = static_cast<std::uint8_t>(i / 3 % 512 / 2);
  const Bytes file = encode_image(ramp, ImageFormat::kTiff);
  CHECK(file.size() < ramp.pixels.size() / 20);
  CHECK(decode(file).image.get<Image>().pixels == ramp.pixels);
}

TEST_CASE("TIFF stored without compression reads back whole and says so", "[codec][tiff]") {
  EncodeOptions none;
  none.tiff_compression = TiffCompression::kNone;
  for (const auto& [w, h] : {std::pair{1, 1}, std::pair{3001, 7}, std::pair{97, 4099}}) {
    for (int channels = 1; channels <= 4; ++channels) {
      CAPTURE(w, h, channels);
      const auto seed = static_cast<std::uint32_t>(w + h + channels);
      const Image in8 = test::random_image(w, h, channels, seed);
      const Image16 in16 = test::random_image16(w, h, channels, seed);
      const Bytes file8 = encode_image(in8, ImageFormat::kTiff, none);
      CHECK(file8.size() >= in8.pixels.size());  // the samples as they are, and a header
      const DecodedImage back8 = decode(file8);
      CHECK(back8.image.get<Image>().pixels == in8.pixels);
      CHECK(back8.tiff_compression == TiffCompression::kNone);
      CHECK(decode(encode_image(in16, ImageFormat::kTiff, none)).image.get<Image16>().pixels ==
            in16.pixels);
    }
  }
  // The default for an image without a TIFF of its own: Deflate, which the decoder reports.
  const DecodedImage deflated = decode(encode_image(test::random_image(9, 9, 3, 1), ImageFormat::kTiff));
  CHECK(deflated.tiff_compression == TiffCompression::kDeflate);
  CHECK(decode(encode_image(test::random_image(9, 9, 3, 1), ImageFormat::kPng)).tiff_compression ==
        TiffCompression::kAuto);
}

// An uncompressed TIFF of interleaved samples (`bits` 8 or 16, 1 to 3 channels; 2: gray and
// unassociated alpha) in strips of `rows_per_strip` rows, stored in the file last strip first, in
// either byte order: the layouts other writers make, which the decoder reads strip by strip
// straight into the image. `samples` are the image's, in the host's order.
Bytes strip_tiff(int w, int h, int channels, int bits, int rows_per_strip, bool big,
                 const std::vector<std::uint16_t>& samples) {
  const auto p16 = [big](Bytes& b, unsigned v) { big ? put16be(b, v) : put16le(b, v); };
  const auto p32 = [big](Bytes& b, std::uint32_t v) { big ? put32be(b, v) : put32le(b, v); };
  const auto row_samples = static_cast<std::size_t>(w * channels);
  const int strips = (h + rows_per_strip - 1) / rows_per_strip;
  Bytes b = big ? Bytes{'M', 'M', 0, 42} : Bytes{'I', 'I', 42, 0};
  p32(b, 0);  // the directory's offset, set below
  std::vector<std::uint32_t> offsets(static_cast<std::size_t>(strips)), counts(offsets.size());
  for (int s = strips - 1; s >= 0; --s) {  // last strip first
    offsets[static_cast<std::size_t>(s)] = static_cast<std::uint32_t>(b.size());
    const int first = s * rows_per_strip, rows = std::min(rows_per_strip, h - first);
    for (std::size_t i = 0; i < static_cast<std::size_t>(rows) * row_samples; ++i) {
      const std::uint16_t v = samples[static_cast<std::size_t>(first) * row_samples + i];
      if (bits == 8) {
        b.push_back(static_cast<std::uint8_t>(v));
      } else {
        p16(b, v);
      }
    }
    counts[static_cast<std::size_t>(s)] =
        static_cast<std::uint32_t>(b.size()) - offsets[static_cast<std::size_t>(s)];
    if (b.size() % 2) b.push_back(0);
  }
  const auto array_at = static_cast<std::uint32_t>(b.size());  // BitsPerSample, offsets, counts
  for (int c = 0; c < channels; ++c) p16(b, static_cast<unsigned>(bits));
  for (std::uint32_t o : offsets) p32(b, o);
  for (std::uint32_t n : counts) p32(b, n);
  const auto ifd = static_cast<std::uint32_t>(b.size());
  Bytes at;
  p32(at, ifd);
  std::copy(at.begin(), at.end(), b.begin() + 4);
  struct Tag {
    unsigned tag, type;
    std::uint32_t count, value;  // value: inline, or an offset
  };
  const auto n = static_cast<std::uint32_t>(strips);
  const std::uint32_t bits_at = array_at, offsets_at = array_at + 2 * static_cast<std::uint32_t>(channels),
                      counts_at = offsets_at + 4 * n;
  std::vector<Tag> tags = {
      {256, 4, 1, static_cast<std::uint32_t>(w)},
      {257, 4, 1, static_cast<std::uint32_t>(h)},
      {258, 3, static_cast<std::uint32_t>(channels), channels == 1 ? unsigned(bits) : bits_at},
      {259, 3, 1, 1},
      {262, 3, 1, channels == 3 ? 2u : 1u},
      {273, 4, n, n == 1 ? offsets[0] : offsets_at},
      {277, 3, 1, static_cast<std::uint32_t>(channels)},
      {278, 4, 1, static_cast<std::uint32_t>(rows_per_strip)},
      {279, 4, n, n == 1 ? counts[0] : counts_at},
      {284, 3, 1, 1}};
  if (channels == 2) tags.push_back({338, 3, 1, 2});  // unassociated alpha
  p16(b, static_cast<unsigned>(tags.size()));
  for (const Tag& t : tags) {
    p16(b, t.tag), p16(b, t.type), p32(b, t.count);
    // Values of 4 bytes or fewer sit in the field: a SHORT in its first two bytes, two SHORTs
    // (BitsPerSample of 2 channels) in both halves.
    if (t.type == 3 && t.count == 1) {
      p16(b, t.value), p16(b, 0);
    } else if (t.type == 3 && t.count == 2) {
      p16(b, static_cast<unsigned>(bits)), p16(b, static_cast<unsigned>(bits));
    } else {
      p32(b, t.value);
    }
  }
  p32(b, 0);  // no next directory
  return b;
}

TEST_CASE("TIFF strips read straight into the image: a short last strip, strips out of order, "
          "either byte order",
          "[codec][tiff]") {
  const int w = 5, h = 7;
  for (const bool big : {false, true}) {
    for (const int bits : {8, 16}) {
      for (int channels = 1; channels <= 3; ++channels) {
        for (const int rows_per_strip : {1, 3, 7, 9}) {
          CAPTURE(big, bits, channels, rows_per_strip);
          std::vector<std::uint16_t> samples(static_cast<std::size_t>(w * h * channels));
          for (std::size_t i = 0; i < samples.size(); ++i) {
            samples[i] = static_cast<std::uint16_t>((i * 40503u + 17u) & (bits == 8 ? 0xffu : 0xffffu));
          }
          const DecodedImage d = decode(strip_tiff(w, h, channels, bits, rows_per_strip, big, samples));
          REQUIRE(d.width() == w);
          REQUIRE(d.height() == h);
          REQUIRE(d.channels() == channels);
          if (bits == 8) {
            const std::vector<std::uint8_t> expected(samples.begin(), samples.end());
            CHECK(d.image.get<Image>().pixels == expected);
          } else {
            CHECK(d.image.get<Image16>().pixels == samples);
          }
          CHECK(d.tiff_compression == TiffCompression::kNone);
        }
      }
    }
  }
}

TEST_CASE("HDR round-trips within RGBE's precision and stays floating-point", "[codec]") {
  for (int width : {5, 17, 300}) {  // flat scanlines below 8 wide, run-length encoded above
    ImageF in = make_raster<float>(width, 9, 3);
    for (std::size_t i = 0; i < in.pixels.size(); ++i)
      in.pixels[i] = 0.01f + static_cast<float>(i % 97 / 4) * 0.7f;
    const Bytes file = encode_image(in, ImageFormat::kHdr);
    const DecodedImage back = decode(file);
    REQUIRE(back.image.bits() == 32);
    REQUIRE(back.image.get<ImageF>().pixels.size() == in.pixels.size());
    for (std::size_t p = 0; p < in.pixels.size();
         p += 3) {  // RGBE: 8-bit mantissas, shared exponent
      const float brightest = std::max({in.pixels[p], in.pixels[p + 1], in.pixels[p + 2]});
      for (std::size_t k = 0; k < 3; ++k) {
        CHECK(std::fabs(back.image.get<ImageF>().pixels[p + k] - in.pixels[p + k]) <=
              brightest / 128);
      }
    }
    check_same_as_stb(file, "x.hdr");
  }
  CHECK_THROWS_AS(encode_image(make_raster<float>(4, 4, 3), ImageFormat::kPng), UsageError);
  CHECK_THROWS_AS(encode_image(test::random_image(4, 4, 3, 1), ImageFormat::kHdr), UsageError);
}

TEST_CASE("16 to 8 bits rounds to nearest", "[codec]") {
  Image16 in = make_raster<std::uint16_t>(5, 1, 1);
  in.pixels = {0, 128, 129, 65406, 65535};  // 65406 / 257 = 254.498
  CHECK(to_8_bit(in).pixels == std::vector<std::uint8_t>{0, 0, 1, 254, 255});
}

TEST_CASE("lossy JPEG and WebP: the same shape, close samples, gray stays gray in JPEG",
          "[codec]") {
  Image smooth = make_image(64, 48, 3);
  for (std::size_t i = 0; i < smooth.pixels.size(); ++i)
    smooth.pixels[i] = static_cast<std::uint8_t>(i / 3 % 64 * 3 + i % 3 * 20);
  for (ImageFormat format : {ImageFormat::kJpeg, ImageFormat::kWebp}) {
    const DecodedImage back = decode(encode_image(smooth, format));
    REQUIRE(back.width() == 64);
    REQUIRE(back.channels() == 3);
    double error = 0;
    for (std::size_t i = 0; i < smooth.pixels.size(); ++i)
      error += std::abs(back.image.get<Image>().pixels[i] - smooth.pixels[i]);
    CHECK(error / static_cast<double>(smooth.pixels.size()) < 3.0);
  }
  CHECK(decode(encode_image(test::random_image(16, 16, 1, 2), ImageFormat::kJpeg)).channels() == 1);
  CHECK(decode(encode_image(test::random_image(16, 16, 4, 2), ImageFormat::kJpeg)).channels() == 3);
}

TEST_CASE("JPEG keeps its input's chroma subsampling when asked to", "[codec]") {
  const Image in = test::random_image(32, 32, 3, 5);
  for (ChromaSubsampling s :
       {ChromaSubsampling::k444, ChromaSubsampling::k422, ChromaSubsampling::k420}) {
    EncodeOptions options;
    options.jpeg_subsampling = s;
    CHECK(decode(encode_image(in, ImageFormat::kJpeg, options)).subsampling == s);
  }
}

TEST_CASE("gpublur's own decoders read their own files as stb_image does", "[codec]") {
  for (int channels = 1; channels <= 4; ++channels) {
    const Image in = test_image(31, 17, channels, static_cast<std::uint32_t>(channels + 40));
    check_same_as_stb(encode_image(in, ImageFormat::kBmp), "x.bmp");
    check_same_as_stb(encode_image(in, ImageFormat::kTga), "x.tga");
    if (channels == 1 || channels == 3) {  // stb reads P5 and P6, not PAM
      check_same_as_stb(encode_image(in, ImageFormat::kPnm), "x.pnm");
    }
  }
}

TEST_CASE("GIF: the first frame drawn on its canvas, as stb_image draws it", "[codec][gif]") {
  struct Case {
    std::string what;
    GifFrame frame;
    int channels;
  };
  const std::vector<Case> cases = {
      {"covering, opaque", {}, 3},
      {"interlaced", {8, 11, 0, 0, 8, 11, true, -1}, 3},
      {"a transparent index used", {8, 6, 0, 0, 8, 6, false, 2}, 4},
      {"a transparent index never used", {8, 6, 0, 0, 8, 6, false, 7}, 3},
      {"smaller than the canvas", {8, 6, 2, 3, 5, 2, false, -1}, 4},
  };
  for (const Case& c : cases) {
    CAPTURE(c.what);
    const Bytes file = gif_file(c.frame);
    const DecodedImage ours = decode(file, "x.gif");
    CHECK(ours.channels() == c.channels);
    CHECK(ours.width() == c.frame.canvas_w);
    const std::optional<AnyImage> stb = test::stb_decode(file, c.channels);
    REQUIRE(stb);
    CHECK(*stb == ours.image);
  }
  // A frame past the canvas's right edge (which stb_image refuses) is clipped to it.
  const DecodedImage clipped = decode(gif_file({8, 2, 5, 0, 10, 2, false, -1}), "x.gif");
  REQUIRE(clipped.channels() == 4);
  for (int y = 0; y < 2; ++y) {
    for (int x = 0; x < 8; ++x) {
      CAPTURE(x, y);
      const std::uint8_t* px =
          &clipped.image.get<Image>().pixels[static_cast<std::size_t>((y * 8 + x) * 4)];
      const GifColorType colour = kGifColours[(x - 5 + 2 * y) % 4];
      CHECK(std::vector<int>(px, px + 4) ==
            (x < 5 ? std::vector<int>{0, 0, 0, 0}
                   : std::vector<int>{colour.Red, colour.Green, colour.Blue, 255}));
    }
  }
}

TEST_CASE("BMP variants: palettes, bit fields, top-down, OS/2, RLE", "[codec][bmp]") {
  const std::vector<std::uint32_t> palette = {0x000000, 0xff0000, 0x00ff00, 0x0000ff, 0x808080};
  // 8-bit palette, 3x2, rows padded to 4 bytes.
  check_same_as_stb(bmp(3, 2, 8, palette, {}, {0, 1, 2, 0, 3, 4, 1, 0}), "p8.bmp");
  // 4-bit and 1-bit palettes.
  check_same_as_stb(bmp(3, 2, 4, palette, {}, {0x01, 0x20, 0, 0, 0x34, 0x10, 0, 0}), "p4.bmp");
  check_same_as_stb(bmp(9, 2, 1, {0x000000, 0xffffff}, {}, {0xa5, 0x80, 0, 0, 0x5a, 0x00, 0, 0}),
                    "p1.bmp");
  // 16-bit 5-6-5 bit fields.
  check_same_as_stb(
      bmp(2, 2, 16, {}, {0xf800, 0x07e0, 0x001f}, {0x1f, 0xf8, 0xe0, 0x07, 0x00, 0xf8, 0xff, 0xff}),
      "b565.bmp");
  // 16-bit default 5-5-5.
  check_same_as_stb(bmp(2, 1, 16, {}, {}, {0x1f, 0x7c, 0xe0, 0x03}), "b555.bmp");
  // Top-down: a negative height reads rows in file order.
  Bytes down = bmp(1, 2, 24, {}, {}, {1, 2, 3, 0, 4, 5, 6, 0});
  down[22] = 0xfe, down[23] = down[24] = down[25] = 0xff;  // height -2
  const DecodedImage d = decode(down, "down.bmp");
  CHECK(d.image.get<Image>().pixels == std::vector<std::uint8_t>{3, 2, 1, 6, 5, 4});
  // RLE8: a run of 3 of index 1, 3 literals (2, 3, 4) padded to 16 bits, end of line; then end of
  // bitmap. Bottom-up: the file's first row is the image's last.
  const Bytes rle = bmp(6, 2, 8, palette, {}, {3, 1, 0, 3, 2, 3, 4, 0, 0, 0, 0, 1}, 1);
  const DecodedImage r = decode(rle, "rle.bmp");
  REQUIRE(r.channels() == 3);
  const std::vector<std::uint8_t> last(r.image.get<Image>().pixels.begin() + 18,
                                       r.image.get<Image>().pixels.end());
  CHECK(last == std::vector<std::uint8_t>{255, 0, 0, 255, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255,
                                          128, 128, 128});
  // The first row was never coded: index 0, black.
  CHECK(std::all_of(r.image.get<Image>().pixels.begin(), r.image.get<Image>().pixels.begin() + 18,
                    [](std::uint8_t v) { return v == 0; }));
  // 32-bit pixels with all-zero fourth bytes: no alpha.
  CHECK(decode(bmp(1, 1, 32, {}, {}, {1, 2, 3, 0}), "x.bmp").channels() == 3);
  CHECK(decode(bmp(1, 1, 32, {}, {}, {1, 2, 3, 9}), "x.bmp").channels() == 4);
}

TEST_CASE("TGA variants: uncompressed, colour-mapped, bottom-up", "[codec][tga]") {
  // True colour, uncompressed, 2x2, bottom-left origin (descriptor 0).
  Bytes t = {0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 2, 0, 24, 0};
  for (int i = 0; i < 12; ++i) t.push_back(static_cast<std::uint8_t>(10 * i));
  check_same_as_stb(t, "t.tga");
  // Colour-mapped: 3 entries of 24 bits, 8-bit indices.
  Bytes m = {0, 1, 1, 0, 0, 3, 0, 24, 0, 0, 0, 0, 3, 0, 1, 0, 8, 32};
  for (int v : {0, 0, 255, 0, 255, 0, 255, 0, 0}) m.push_back(static_cast<std::uint8_t>(v));
  for (int v : {2, 1, 0}) m.push_back(static_cast<std::uint8_t>(v));
  const DecodedImage d = decode(m, "m.tga");
  CHECK(d.image.get<Image>().pixels == std::vector<std::uint8_t>{0, 0, 255, 0, 255, 0, 255, 0, 0});
}

TEST_CASE("PNM variants: ASCII, bits, PAM, other maximum values", "[codec][pnm]") {
  const auto text = [](const std::string& s) { return Bytes(s.begin(), s.end()); };
  CHECK(decode(text("P1\n3 1\n1 0 1\n")).image.get<Image>().pixels ==
        std::vector<std::uint8_t>{0, 255, 0});
  CHECK(decode(text("P1 3 1 101")).image.get<Image>().pixels ==
        std::vector<std::uint8_t>{0, 255, 0});
  CHECK(decode(text("P2\n# comment\n2 1\n10\n0 10\n")).image.get<Image>().pixels ==
        std::vector<std::uint8_t>{0, 255});
  const DecodedImage p3 = decode(text("P3 1 1 1000 0 500 1000"));
  REQUIRE(p3.image.bits() == 16);
  CHECK(p3.image.get<Image16>().pixels == std::vector<std::uint16_t>{0, 32768, 65535});
  Bytes p4 = text("P4\n10 1\n");
  p4.insert(p4.end(), {0xf0, 0x40});
  CHECK(decode(p4).image.get<Image>().pixels ==
        std::vector<std::uint8_t>{0, 0, 0, 0, 255, 255, 255, 255, 255, 0});
  // 16-bit samples are big-endian.
  Bytes p5 = text("P5 2 1 65535\n");
  p5.insert(p5.end(), {0x01, 0x02, 0xff, 0x00});
  CHECK(decode(p5).image.get<Image16>().pixels == std::vector<std::uint16_t>{0x0102, 0xff00});
  Bytes pam =
      text("P7\nWIDTH 1\nHEIGHT 1\nDEPTH 2\nMAXVAL 255\nTUPLTYPE GRAYSCALE_ALPHA\nENDHDR\n");
  pam.insert(pam.end(), {7, 9});
  const DecodedImage a = decode(pam);
  CHECK(a.channels() == 2);
  CHECK(a.image.get<Image>().pixels == std::vector<std::uint8_t>{7, 9});
  check_same_as_stb(text("P5 2 1 255 \x01\xfe"), "x.pgm");
}

TEST_CASE("PSD composites: raw and PackBits, 8 and 16 bits", "[codec][psd]") {
  // A 2x2 RGB PSD (3 channels), composite stored raw, then the same PackBits-compressed.
  const auto psd = [](int depth, int compression, int channels, const Bytes& resources = {}) {
    Bytes b = {'8', 'B', 'P', 'S', 0, 1, 0, 0, 0, 0, 0, 0};
    put16be(b, static_cast<unsigned>(channels));
    put32be(b, 2);  // height
    put32be(b, 2);  // width
    put16be(b, static_cast<unsigned>(depth));
    put16be(b, 3);  // RGB
    put32be(b, 0);  // colour mode data
    put32be(b, static_cast<std::uint32_t>(resources.size()));  // image resources
    b.insert(b.end(), resources.begin(), resources.end());
    put32be(b, 0);  // layers
    put16be(b, static_cast<unsigned>(compression));
    const int bytes = depth / 8;
    if (compression == 1) {
      for (int i = 0; i < channels * 2; ++i) put16be(b, static_cast<unsigned>(2 * bytes + 1));
      for (int c = 0; c < channels; ++c) {
        for (int y = 0; y < 2; ++y) {
          b.push_back(static_cast<std::uint8_t>(2 * bytes - 1));  // literal of 2 * bytes
          for (int i = 0; i < 2 * bytes; ++i)
            b.push_back(static_cast<std::uint8_t>(40 * c + 10 * y + i + (c == 3 ? 200 : 0)));
        }
      }
    } else {
      for (int c = 0; c < channels; ++c) {
        for (int y = 0; y < 2; ++y) {
          for (int i = 0; i < 2 * bytes; ++i)
            b.push_back(static_cast<std::uint8_t>(40 * c + 10 * y + i + (c == 3 ? 200 : 0)));
        }
      }
    }
    return b;
  };
  for (int depth : {8, 16}) {
    for (int channels : {3, 4}) {
      CAPTURE(depth, channels);
      const Bytes raw = psd(depth, 0, channels), packed = psd(depth, 1, channels);
      const DecodedImage a = decode(raw), b = decode(packed);
      CHECK(a.image.bits() == depth);
      CHECK(a.channels() == channels);
      if (depth == 8) CHECK(a.image.get<Image>().pixels == b.image.get<Image>().pixels);
      if (depth == 16) CHECK(a.image.get<Image16>().pixels == b.image.get<Image16>().pixels);
      if (channels == 3 && depth == 8) check_same_as_stb(raw, "x.psd");
    }
  }
  // Image resources: the ICC profile (1039) and XMP (1060), each "8BIM", its id, an empty name
  // padded to 2 bytes, its size, and its data padded to an even length.
  const Bytes icc = test::test_icc_profile(600);
  const Bytes xmp = test::xmp_packet("psd");
  Bytes resources;
  for (const auto& [id, data] : std::vector<std::pair<unsigned, Bytes>>{{1039, icc}, {1060, xmp}}) {
    resources.insert(resources.end(), {'8', 'B', 'I', 'M'});
    put16be(resources, id), put16be(resources, 0);
    put32be(resources, static_cast<std::uint32_t>(data.size()));
    resources.insert(resources.end(), data.begin(), data.end());
    if (data.size() % 2) resources.push_back(0);
  }
  const DecodedImage with = decode(psd(8, 0, 3, resources));
  CHECK(with.metadata.icc == icc);
  CHECK(with.metadata.xmp == xmp);
}

TEST_CASE("the content decides the format, not the name", "[codec]") {
  const Image in = test::random_image(5, 4, 3, 8);
  const DecodedImage d = decode(encode_image(in, ImageFormat::kPng), "photo.jpg");
  CHECK(d.format == ImageFormat::kPng);
  CHECK(d.image.get<Image>().pixels == in.pixels);
}

TEST_CASE("formats from names and contents", "[codec]") {
  CHECK(format_for_path("a.PNG") == ImageFormat::kPng);
  CHECK(format_for_path("dir.v2/a.jpeg") == ImageFormat::kJpeg);
  CHECK(format_for_path("a.tif") == ImageFormat::kTiff);
  CHECK(format_for_path("a.pgm") == ImageFormat::kPnm);
  CHECK(format_for_path("a.gif") == ImageFormat::kGif);
  CHECK_FALSE(format_traits(ImageFormat::kGif).writable);
  CHECK_FALSE(format_for_path("a.txt"));
  CHECK_FALSE(format_for_path("dir.png/noext"));
  CHECK(parse_format("JPG") == ImageFormat::kJpeg);
  CHECK(parse_format(".webp") == ImageFormat::kWebp);
  CHECK(parse_format("tiff") == ImageFormat::kTiff);
  CHECK_FALSE(parse_format("xyz"));
}

TEST_CASE("small files claiming huge images are refused before pixels are allocated",
          "[codec][limits]") {
  // Each claims 26754 x 26754 pixels (716 megapixels) in a few dozen bytes.
  Bytes b = bmp(1, 1, 24, {}, {}, {0, 0, 0, 0});
  b[18] = b[22] = 0x82, b[19] = b[23] = 0x68;  // width and height 26754
  const Bytes tga = {0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x82, 0x68, 0x82, 0x68, 24, 0, 1, 2, 3};
  const Bytes pnm = {'P', '6', ' ', '2', '6', '7', '5', '4', ' ',  '2',
                     '6', '7', '5', '4', ' ', '2', '5', '5', '\n', 0};
  const std::string hdr_text = "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 26754 +X 26754\n\x02\x02";
  const Bytes hdr(hdr_text.begin(), hdr_text.end());
  Bytes psd = {'8', 'B', 'P', 'S', 0, 1, 0, 0, 0, 0, 0, 0, 0, 3};
  put32be(psd, 26754), put32be(psd, 26754), put16be(psd, 8), put16be(psd, 3);
  for (int i = 0; i < 3; ++i) put32be(psd, 0);
  put16be(psd, 0);
  const Bytes gif = {'G', 'I', 'F', '8', '9', 'a', 0x82, 0x68, 0x82, 0x68, 0, 0, 0, ';'};
  for (const auto& [name, file] : std::vector<std::pair<std::string, Bytes>>{{"b.bmp", b},
                                                                             {"t.tga", tga},
                                                                             {"p.pnm", pnm},
                                                                             {"h.hdr", hdr},
                                                                             {"p.psd", psd},
                                                                             {"g.gif", gif}}) {
    CAPTURE(name);
    CHECK_THROWS_WITH(decode(file, name), Catch::Contains("limit of 134.2 megapixels"));
    // Past the limit as well, the data cannot hold what the header claims.
    if (name != "g.gif")
      CHECK_THROWS_WITH(decode(file, name, DecodeLimits{0, 0}), Catch::Contains("truncated"));
  }
  CHECK_THROWS_WITH(decode(pnm, "p.pnm", DecodeLimits{100}), Catch::Contains("--max-pixels 100"));
}

TEST_CASE("the byte limit (--max-bytes) counts decoded samples: pixels, channels, sample bytes",
          "[codec][limits]") {
  // 10x10 images: the bytes each decoder says it will make, refused one byte below, read at it.
  const Image rgb = test::random_image(10, 10, 3, 5);
  ImageF hdr = make_raster<float>(10, 10, 3);
  const std::vector<std::tuple<std::string, Bytes, std::uint64_t>> files = {
      {"16-bit RGBA PNG", encode_image(test::random_image16(10, 10, 4, 1), ImageFormat::kPng), 800},
      {"16-bit RGB TIFF", encode_image(test::random_image16(10, 10, 3, 1), ImageFormat::kTiff),
       600},
      {"16-bit gray PNM", encode_image(test::random_image16(10, 10, 1, 1), ImageFormat::kPnm), 200},
      {"HDR", encode_image(hdr, ImageFormat::kHdr), 1200},
      {"gray JPEG", encode_image(test::random_image(10, 10, 1, 1), ImageFormat::kJpeg), 100},
      {"RGB WebP", encode_image(rgb, ImageFormat::kWebp), 300},
      {"24-bit BMP", encode_image(rgb, ImageFormat::kBmp), 300},
      {"TGA (alpha known only once decoded)", encode_image(rgb, ImageFormat::kTga), 400},
  };
  for (const auto& [what, file, bytes] : files) {
    CAPTURE(what);
    const std::string name = what == "TGA (alpha known only once decoded)" ? "t.tga" : "x";
    CHECK_NOTHROW(decode(file, name, DecodeLimits{0, bytes}));
    CHECK_THROWS_WITH(decode(file, name, DecodeLimits{0, bytes - 1}),
                      Catch::Contains("--max-bytes " + std::to_string(bytes - 1) + ")"));
  }
  // The defaults: 2^27 pixels, 1 GiB. A 10000x10000 HDR (100 megapixels) takes 1.2 GB of floats.
  const std::string header = "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 10000 +X 10000\n";
  CHECK_THROWS_WITH(decode(Bytes(header.begin(), header.end())),
                    Catch::Contains("image of 10000x10000 pixels, 3 channels of 32 bits, takes "
                                    "1144.4 MiB decoded, more than the limit of 1024.0 MiB "
                                    "(--max-bytes 1073741824)"));
}
