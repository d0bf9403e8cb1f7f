// raw_read_test.cpp — raw files read straight into their rasters, a piece on each thread: the
// decoder's samples, sample for sample, for images of several pieces (PNMs; BMPs bottom-up and
// top-down, rows padded, more rows than one preadv takes); anything else (another format, a file
// that ends early, a FIFO, standard input) left to the ordinary read.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <thread>

#include "batch/raw_read.hpp"
#include "codecs/image_decode.hpp"
#include "codecs/image_encode.hpp"
#include "support/raw_files.hpp"
#include "support/reference_blur.hpp"
#include "support/temp_dir.hpp"
#include "support/test_exif.hpp"

using namespace gpublur;

namespace {

void write(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

template <typename Sample>
void check_same(const AnyImage& a, const AnyImage& b) {
  REQUIRE(a.sample_format() == b.sample_format());
  CHECK(a.width() == b.width());
  CHECK(a.height() == b.height());
  CHECK(a.channels() == b.channels());
  CHECK(test::first_difference(a.get<Raster<Sample>>().pixels, b.get<Raster<Sample>>().pixels) ==
        "");
}

// `file` written as `name`, read raw (it must take the raw route, its whole size) and decoded the
// ordinary way, for the two to be compared.
struct BothReads {
  RawRead raw;
  DecodedImage decoded;
};
BothReads read_both(const test::TempDir& dir, const std::string& name,
                    const std::vector<std::uint8_t>& file) {
  write(dir.file(name), file);
  std::optional<RawRead> read = read_raw_image(dir.file(name), {});
  REQUIRE(read);
  CHECK(read->file_bytes == file.size());
  return {std::move(*read), decode_image(file, name)};
}

}  // namespace

TEST_CASE("a raw image of several pieces reads as the decoder reads it", "[batch][raw]") {
  const test::TempDir dir;
  // 16-bit RGB of 18 MB (three pieces, the last a short one) and 8-bit gray of odd size.
  const Image16 wide = test::random_image16(2000, 1501, 3, 7);
  const Image gray = test::random_image(1999, 4999, 1, 8);
  const std::vector<std::uint8_t> wide_file = encode_image(wide, ImageFormat::kPnm);
  const std::vector<std::uint8_t> gray_file = encode_image(gray, ImageFormat::kPnm);
  write(dir.file("wide.ppm"), wide_file);
  write(dir.file("gray.pgm"), gray_file);
  const std::optional<RawRead> a = read_raw_image(dir.file("wide.ppm"), {});
  REQUIRE(a);
  CHECK(a->file_bytes == wide_file.size());
  CHECK(a->decoded.format == ImageFormat::kPnm);
  check_same<std::uint16_t>(a->decoded.image, decode_image(wide_file, "w").image);
  const std::optional<RawRead> b = read_raw_image(dir.file("gray.pgm"), {});
  REQUIRE(b);
  check_same<std::uint8_t>(b->decoded.image, decode_image(gray_file, "g").image);
}

TEST_CASE("a raw BMP reads as the decoder reads it, row by row", "[batch][raw][bmp]") {
  const test::TempDir dir;
  test::BmpSpec down;
  down.top_down = true, down.bpp = 32;
  test::BmpSpec alpha_free;
  alpha_free.bpp = 32;
  Image rgbx = test::random_image(999, 2001, 4, 3);
  for (std::size_t i = 3; i < rgbx.pixels.size(); i += 4) rgbx.pixels[i] = 0;
  const std::vector<std::pair<std::string, std::vector<std::uint8_t>>> files = {
      // Ours, bottom-up: rows of 6004 bytes (one of padding), 9 MB (two pieces, many batches).
      {"ours.bmp", encode_image(test::random_image(2001, 1501, 3, 4), ImageFormat::kBmp)},
      // A column: 60,000 rows of 1 pixel and 1 byte of padding, more than one preadv takes.
      {"column.bmp", test::bmp_as_written({}, test::random_image(1, 60000, 3, 5))},
      // Top-down, 32 bits with alpha: 8 MB and a row (two pieces, the second of one row).
      {"down.bmp", test::bmp_as_written(down, test::random_image(1024, 2049, 4, 6))},
      // 32 bits whose fourth bytes are all 0: RGB, as the decoder makes it.
      {"rgbx.bmp", test::bmp_as_written(alpha_free, rgbx)}};
  for (const auto& [name, file] : files) {
    CAPTURE(name);
    const auto [raw, decoded] = read_both(dir, name, file);
    CHECK(raw.decoded.format == ImageFormat::kBmp);
    check_same<std::uint8_t>(raw.decoded.image, decoded.image);
    REQUIRE(raw.decoded.metadata.density.has_value() == decoded.metadata.density.has_value());
    if (decoded.metadata.density)
      CHECK(*raw.decoded.metadata.density == *decoded.metadata.density);
  }
  // A BMP that ends before its rows do: the decoder says "truncated".
  const std::vector<std::uint8_t>& ours = files[0].second;
  write(dir.file("short.bmp"), std::vector<std::uint8_t>(ours.begin(), ours.end() - 1));
  CHECK_FALSE(read_raw_image(dir.file("short.bmp"), {}));
  CHECK_THROWS_WITH(read_image(dir.file("short.bmp")), Catch::Contains("truncated"));
}

TEST_CASE("a raw TIFF reads as the decoder reads it, strip by strip", "[batch][raw][tiff]") {
  const test::TempDir dir;
  EncodeOptions none;
  none.tiff_compression = TiffCompression::kNone;
  Metadata m;
  m.exif = test::camera_exif(true);
  m.icc = {1, 2, 3, 4, 5};
  m.density = Density{300, 300, Density::Unit::kInch};
  test::TiffSpec big;
  big.big = true, big.rows_per_strip = 7, big.reversed = true, big.gap = 1;
  test::TiffSpec rows;
  rows.rows_per_strip = 1;
  const std::vector<std::pair<std::string, std::vector<std::uint8_t>>> files = {
      // Ours, 16-bit RGBA: 24 MB in strips of a row (three pieces), its directory at the end.
      {"ours.tif",
       encode_image(test::random_image16(1000, 1501, 4, 4), ImageFormat::kTiff, none, m)},
      // Big-endian 16-bit (swapped), strips of 7 rows stored last first with gaps: 9 MB.
      {"big.tif", test::tiff_as_written(big, test::random_image16(999, 1501, 3, 5))},
      // A column: 60,000 strips of a row of 1 gray byte, more than one preadv takes.
      {"column.tif", test::tiff_as_written(rows, test::random_image(1, 60000, 1, 6))}};
  for (const auto& [name, file] : files) {
    CAPTURE(name);
    const auto [raw, decoded] = read_both(dir, name, file);
    CHECK(raw.decoded.format == ImageFormat::kTiff);
    CHECK(raw.decoded.tiff_compression == TiffCompression::kNone);
    if (decoded.image.bits() == 16) {
      check_same<std::uint16_t>(raw.decoded.image, decoded.image);
    } else {
      check_same<std::uint8_t>(raw.decoded.image, decoded.image);
    }
    CHECK(raw.decoded.metadata.exif == decoded.metadata.exif);
    CHECK(raw.decoded.metadata.icc == decoded.metadata.icc);
    CHECK(raw.decoded.metadata.density.has_value() == decoded.metadata.density.has_value());
  }
  // A TIFF whose directory reads but whose one strip (900 KB) ends a byte past the file's end:
  // left to the ordinary read, which refuses it.
  test::TiffSpec past;
  past.rows_per_strip = 3000;
  const std::size_t size = test::tiff_as_written(past, test::random_image(100, 3000, 3, 9)).size();
  past.first_offset_delta = static_cast<std::int64_t>(size - 100 * 3000 * 3 + 1) - 8;
  write(dir.file("past.tif"), test::tiff_as_written(past, test::random_image(100, 3000, 3, 9)));
  CHECK_FALSE(read_raw_image(dir.file("past.tif"), {}));
  CHECK_THROWS(read_image(dir.file("past.tif")));
  // Compressed: the ordinary read.
  write(dir.file("deflated.tif"),
        encode_image(test::random_image(30, 20, 3, 1), ImageFormat::kTiff));
  CHECK_FALSE(read_raw_image(dir.file("deflated.tif"), {}));
}

TEST_CASE("what the raw read does not take is left to the ordinary read", "[batch][raw]") {
  const test::TempDir dir;
  const std::vector<std::uint8_t> ppm = encode_image(test::random_image(300, 200, 3, 1), ImageFormat::kPnm);
  // A file that ends before its samples do: the decoder says "truncated".
  write(dir.file("short.ppm"), std::vector<std::uint8_t>(ppm.begin(), ppm.end() - 1));
  CHECK_FALSE(read_raw_image(dir.file("short.ppm"), {}));
  CHECK_THROWS_WITH(read_image(dir.file("short.ppm")), Catch::Contains("truncated"));
  // Another format, a missing file, a directory, standard input.
  write(dir.file("a.png"), encode_image(test::random_image(30, 20, 3, 1), ImageFormat::kPng));
  CHECK_FALSE(read_raw_image(dir.file("a.png"), {}));
  CHECK_FALSE(read_raw_image(dir.file("missing.ppm"), {}));
  CHECK_FALSE(read_raw_image(dir.path, {}));
  CHECK_FALSE(read_raw_image("-", {}));
  // Past the limits: the decoder's message, not a silent read.
  write(dir.file("a.ppm"), ppm);
  CHECK_FALSE(read_raw_image(dir.file("a.ppm"), DecodeLimits{1000, 0}));
  CHECK(read_raw_image(dir.file("a.ppm"), {}));
}

TEST_CASE("a FIFO is never opened: its writer stays waiting for the real reader", "[batch][raw]") {
  // Opening it would let a writer waiting in open() through, and closing it again would leave
  // that writer without a reader (killed by SIGPIPE) and the ordinary read without a writer.
  const test::TempDir dir;
  const std::string fifo = dir.file("fifo.ppm");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  std::atomic<bool> opened{false};
  std::thread writer([&] {
    const int fd = ::open(fifo.c_str(), O_WRONLY);  // waits for a reader
    opened = true;
    if (fd >= 0) ::close(fd);
  });
  CHECK_FALSE(read_raw_image(fifo, {}));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK_FALSE(opened);
  const int reader = ::open(fifo.c_str(), O_RDONLY);  // the real reader lets it go
  writer.join();
  if (reader >= 0) ::close(reader);
  CHECK(opened);
}
