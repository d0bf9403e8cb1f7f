// malformed_input_test.cpp — the inputs that crashed, hung or misbehaved in the decoders gpublur
// used to ship (stb_image), each rebuilt byte by byte, and every crasher our own fuzz targets
// have found (tests/crashers/FORMAT/*): each is refused with an IoError or read, never more.
#include <catch2/catch.hpp>

#include <array>
#include <chrono>
#include <filesystem>
#include <string>

#include "base/errors.hpp"
#include "codecs/image_decode.hpp"
#include "codecs/image_encode.hpp"
#include "codecs/jpeg_codec.hpp"
#include "support/jpeg_variants.hpp"
#include "support/reference_blur.hpp"
#include "support/test_bytes.hpp"

using namespace gpublur;
using test::Bytes;

namespace {

DecodedImage decode(const Bytes& file, const std::string& name) {
  return decode_image(file, name, DecodeLimits{});
}

// A 16x16 gray TIFF of one uncompressed tile of `tile` x `tile` pixels, holding `data` bytes of it
// (a whole tile: tile * tile).
Bytes tiled_tiff(std::uint32_t tile, std::uint32_t data) {
  Bytes b = {'I', 'I', 42, 0};
  test::put32le(b, 8);
  const std::vector<std::array<std::uint32_t, 3>> entries = {
      // tag, type (3 SHORT, 4 LONG), value
      {256, 4, 16}, {257, 4, 16},   {258, 3, 8},    {259, 3, 1}, {262, 3, 1},
      {277, 3, 1},  {322, 4, tile}, {323, 4, tile}, {324, 4, 0}, {325, 4, data}};
  const auto data_at = static_cast<std::uint32_t>(8 + 2 + 12 * entries.size() + 4);
  test::put16le(b, static_cast<unsigned>(entries.size()));
  for (const auto& [tag, type, value] : entries) {
    test::put16le(b, tag), test::put16le(b, type), test::put32le(b, 1);
    test::put32le(b, tag == 324 ? data_at : value);  // a SHORT sits in the field's first 2 bytes
  }
  test::put32le(b, 0);
  b.resize(b.size() + data, 128);
  return b;
}

// `jpeg` with its last scan (from its SOS marker to EOI) repeated until the file holds `scans`.
Bytes with_repeated_last_scan(const Bytes& jpeg, int scans) {
  std::vector<std::size_t> starts;  // of each SOS: FF DA outside entropy-coded data never repeats
  for (std::size_t i = 0; i + 1 < jpeg.size(); ++i) {
    if (jpeg[i] == 0xFF && jpeg[i + 1] == 0xDA) starts.push_back(i);
  }
  REQUIRE(starts.size() >= 2);
  const Bytes last(jpeg.begin() + static_cast<std::ptrdiff_t>(starts.back()), jpeg.end() - 2);
  Bytes out(jpeg.begin(), jpeg.end() - 2);
  for (int n = static_cast<int>(starts.size()); n < scans; ++n)
    out.insert(out.end(), last.begin(), last.end());
  out.push_back(0xFF), out.push_back(0xD9);
  return out;
}

}  // namespace

TEST_CASE("a run-length HDR file cut anywhere is refused at once", "[malformed][hdr]") {
  // stb_image looped forever on a truncated RLE scanline (CVE-2021-42715).
  ImageF image;
  image.width = 64, image.height = 4, image.channels = 3;
  image.pixels.resize(64 * 4 * 3);
  for (std::size_t i = 0; i < image.pixels.size(); ++i) image.pixels[i] = float(i % 17) * 0.25f;
  const Bytes whole = encode_image(image, ImageFormat::kHdr);
  CHECK_NOTHROW(decode(whole, "x.hdr"));
  const auto started = std::chrono::steady_clock::now();
  const std::size_t header = std::string(whole.begin(), whole.end()).find("+X 64\n") + 6;
  for (std::size_t cut = header + 1; cut < whole.size(); cut += 3) {
    CAPTURE(cut);
    CHECK_THROWS_AS(decode(Bytes(whole.begin(), whole.begin() + static_cast<long>(cut)), "x.hdr"),
                    IoError);
  }
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(5));
  // A run longer than the scanline: refused, not written past the line.
  Bytes overrun(whole.begin(), whole.begin() + static_cast<long>(header));
  overrun.insert(overrun.end(), {2, 2, 0, 64, 128 + 127, 1});
  overrun.resize(overrun.size() + 64);  // enough bytes that only the run is wrong
  CHECK_THROWS_WITH(decode(overrun, "x.hdr"), Catch::Contains("damaged HDR scanline"));
}

TEST_CASE("a JPEG Huffman table of more than 256 codes is refused", "[malformed][jpeg]") {
  // stb_image wrote past its table here (UBSan); libjpeg-turbo refuses the table.
  const Bytes good = encode_image(test::random_image(16, 16, 3, 1), ImageFormat::kJpeg);
  Bytes bad(good.begin(), good.begin() + 2);  // SOI
  const unsigned codes = 257;
  bad.insert(bad.end(), {0xff, 0xc4});
  test::put16be(bad, 2 + 1 + 16 + codes);
  bad.push_back(0x00);  // DC table 0
  bad.push_back(17);    // 17 + 15 x 16 = 257 codes
  for (int length = 2; length <= 16; ++length) bad.push_back(16);
  for (unsigned i = 0; i < codes; ++i) bad.push_back(static_cast<std::uint8_t>(i));
  bad.insert(bad.end(), good.begin() + 2, good.end());
  CHECK_THROWS_WITH(decode(bad, "x.jpg"), Catch::Contains("Huffman"));
}

TEST_CASE("PNM headers whose numbers overflow are refused", "[malformed][pnm]") {
  // stb_image overflowed a signed int reading these (UBSan).
  for (const std::string header : {"P6 99999999999999999999 1 255\n", "P6 1 2147483648 255\n",
                                   "P5 4294967295 4294967295 255\n", "P6 2 2 99999999999\n",
                                   "P7\nWIDTH 2147483647\nHEIGHT 2147483647\nDEPTH 4\n"
                                   "MAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n"}) {
    CAPTURE(header);
    const Bytes file(header.begin(), header.end());
    CHECK_THROWS_AS(decode(file, "x.pnm"), IoError);
  }
}

TEST_CASE("BMP headers with INT_MIN sizes are refused", "[malformed][bmp]") {
  // stb_image negated INT_MIN (UBSan); INT_MIN as a height is "top-down, 2^31 rows".
  for (std::size_t field : {std::size_t{18}, std::size_t{22}}) {  // width, height
    CAPTURE(field);
    Bytes b = test::bmp(1, 1, 24, {}, {}, {0, 0, 0, 0});
    b[field] = 0, b[field + 1] = 0, b[field + 2] = 0, b[field + 3] = 0x80;
    CHECK_THROWS_AS(decode(b, "x.bmp"), IoError);
  }
}

TEST_CASE("a progressive JPEG of more than 100 scans is refused, at once", "[malformed][jpeg]") {
  // One refinement scan repeated: libjpeg-turbo decodes every copy (5,000 took 55 s) unless its
  // caller counts them, as djpeg's -maxscans does.
  test::JpegVariant progressive;
  progressive.progressive = true;
  const Bytes jpeg = test::write_jpeg_variant(test::random_image(256, 256, 3, 4), progressive);
  CHECK(decode(with_repeated_last_scan(jpeg, kMaxJpegScans), "x.jpg").width() == 256);
  const Bytes bomb = with_repeated_last_scan(jpeg, 5000);
  const auto start = std::chrono::steady_clock::now();
  CHECK_THROWS_WITH(decode(bomb, "x.jpg"), Catch::Contains("damaged JPEG: more than 100 scans"));
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
  // The header facts, which route a JPEG to the GPU, read no scans: progressive goes to the CPU.
  CHECK(read_jpeg_facts(bomb.data(), bomb.size(), DecodeLimits{}).why_not == "progressive");
}

TEST_CASE("every crasher the fuzz targets found is refused or read, never more",
          "[malformed][fuzz]") {
  int files = 0;
  for (const auto& format : std::filesystem::directory_iterator(GPUBLUR_CRASHERS_DIR)) {
    for (const auto& entry : std::filesystem::directory_iterator(format.path())) {
      CAPTURE(entry.path().string());
      ++files;
      try {
        decode(test::read_bytes(entry.path().string()), entry.path().filename().string());
      } catch (const IoError&) {  // refused: the expected outcome for most
      }
    }
  }
  CHECK(files > 0);
}

TEST_CASE("TIFF tiles larger than the image could need are refused before they are allocated",
          "[malformed][tiff]") {
  // A 16x16 image in one 65536x65536 tile: libtiff's TIFFTileSize said 12.9 GB, which the reader
  // allocated (and 29 s) before libtiff found the tile's data short. Tiles up to 1024 pixels a side
  // are fine on any image (GDAL puts 256-pixel tiles on small ones), larger only on larger images.
  CHECK(decode(tiled_tiff(256, 256 * 256), "x.tif").image.get<Image>().pixels == Bytes(256, 128));
  CHECK(decode(tiled_tiff(1024, 1024 * 1024), "x.tif").image.get<Image>().pixels ==
        Bytes(256, 128));
  CHECK_THROWS_WITH(decode(tiled_tiff(4096, 256), "x.tif"),
                    Catch::Contains("damaged TIFF: tiles of 4096x4096 pixels (16777216 bytes) for "
                                    "an image of 16x16"));
  // (65536-pixel tiles, 12.9 GB before, are tests/limits_end_to_end.sh's, under ulimit -v.)
}

TEST_CASE("a TIFF strip larger than the image could need is refused, not allocated",
          "[malformed][tiff]") {
  // fuzz_tiff: 229 bytes declaring a 63239x65 image whose strip made libtiff ask for 2.1 GB;
  // libtiff's allocations are bounded by what the checked image size can need.
  const Bytes file = test::read_bytes(std::string(GPUBLUR_CRASHERS_DIR) + "/tiff/oom-strip-2gb.tif");
  REQUIRE(file.size() == 229);
  CHECK_THROWS_WITH(decode(file, "x.tif"), Catch::Contains("damaged TIFF"));
}
