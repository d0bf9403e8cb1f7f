// image_io_test.cpp — lossless round trips, damaged inputs, atomic writes.
#include <catch2/catch.hpp>

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "atomic_file.hpp"
#include "errors.hpp"
#include "image_io.hpp"
#include "reference_blur.hpp"
#include "temp_dir.hpp"

using namespace gpublur;

namespace {

using test::TempDir;

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

std::string read_bytes(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(file), {});
}

// Entries in `dir`, hidden ones (such as a leftover temporary) included.
int files_in(const std::string& dir) {
  int count = 0;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name != "." && name != "..") ++count;
    }
    ::closedir(d);
  }
  return count;
}

}  // namespace

TEST_CASE("lossless formats round-trip every channel count", "[image_io]") {
  TempDir dir;
  for (int channels = 1; channels <= 4; ++channels) {
    for (const char* ext : {"png", "bmp", "tga"}) {
      if (std::string(ext) == "bmp" && (channels == 2)) continue;  // BMP has no gray+alpha
      CAPTURE(channels, ext);
      const Image in = test::random_image(37, 19, channels, static_cast<std::uint32_t>(channels));
      const std::string path = dir.file("round." + std::string(ext));
      write_image(in, path);
      const ReadImage back = read_image(path);
      CHECK(back.conversion.empty());
      if (std::string(ext) == "bmp" && channels == 1) continue;  // stb writes gray BMP as RGB
      REQUIRE(back.image.channels == channels);
      CHECK(back.image.pixels == in.pixels);
    }
  }
}

TEST_CASE("every PNG level round-trips exactly; higher levels are no larger", "[image_io]") {
  const Image in = test::random_image(64, 48, 3, 8);
  std::size_t level1 = 0;
  for (int level : {0, 1, 6, 9}) {
    WriteOptions options;
    options.png_level = level;
    const std::vector<std::uint8_t> png = encode_image(in, ImageFormat::kPng, options);
    TempDir dir;
    write_bytes(dir.file("l.png"), std::string(png.begin(), png.end()));
    CHECK(read_image(dir.file("l.png")).image.pixels == in.pixels);
    if (level == 1) level1 = png.size();
    if (level == 9) CHECK(png.size() <= level1);
  }
}

TEST_CASE("PNG encoded in many parallel bands decodes exactly", "[image_io]") {
  // Large enough for several bands (256 KiB each), with odd widths so rows straddle nothing.
  for (int channels = 1; channels <= 4; ++channels) {
    CAPTURE(channels);
    Image in = test::random_image(1201, 777, channels, static_cast<std::uint32_t>(10 + channels));
    for (std::size_t i = 0; i < in.pixels.size(); i += 3)
      in.pixels[i] = static_cast<std::uint8_t>(i / 4096);
    for (int level : {0, 1, 4}) {
      WriteOptions options;
      options.png_level = level;
      const std::vector<std::uint8_t> png = encode_image(in, ImageFormat::kPng, options);
      TempDir dir;
      write_bytes(dir.file("big.png"), std::string(png.begin(), png.end()));
      const ReadImage back = read_image(dir.file("big.png"));
      REQUIRE(back.image.channels == channels);
      CHECK(back.image.pixels == in.pixels);
    }
  }
}

TEST_CASE("16-bit PNG round-trips every channel count and stays 16-bit", "[image_io]") {
  TempDir dir;
  for (int channels = 1; channels <= 4; ++channels) {
    CAPTURE(channels);
    const Image16 in = test::random_image16(45, 21, channels, static_cast<std::uint32_t>(channels));
    write_image(in, dir.file("wide.png"));
    const ReadImage back = read_image(dir.file("wide.png"));
    REQUIRE(back.bits == 16);
    REQUIRE(back.image16.channels == channels);
    CHECK(back.image16.pixels == in.pixels);
    CHECK(back.image.pixels.empty());
  }
  CHECK_THROWS_AS(write_image(test::random_image16(4, 4, 3, 1), dir.file("wide.jpg")), UsageError);
}

TEST_CASE("HDR round-trips within RGBE's precision and stays floating-point", "[image_io]") {
  TempDir dir;
  ImageF in = make_raster<float>(17, 9, 3);
  for (std::size_t i = 0; i < in.pixels.size(); ++i) in.pixels[i] = 0.01f + static_cast<float>(i % 97) * 0.7f;
  write_image(in, dir.file("x.hdr"));
  const ReadImage back = read_image(dir.file("x.hdr"));
  REQUIRE(back.bits == 32);
  REQUIRE(back.imagef.pixels.size() == in.pixels.size());
  for (std::size_t p = 0; p < in.pixels.size(); p += 3) {  // RGBE: 8-bit mantissas, shared exponent
    const float brightest = std::max({in.pixels[p], in.pixels[p + 1], in.pixels[p + 2]});
    for (std::size_t k = 0; k < 3; ++k) CHECK(std::fabs(back.imagef.pixels[p + k] - in.pixels[p + k]) <= brightest / 128);
  }
  CHECK_THROWS_AS(write_image(in, dir.file("x.png")), UsageError);
  CHECK_THROWS_AS(write_image(test::random_image(4, 4, 3, 1), dir.file("y.hdr")), UsageError);
}

TEST_CASE("16 to 8 bits rounds to nearest", "[image_io]") {
  Image16 in = make_raster<std::uint16_t>(5, 1, 1);
  in.pixels = {0, 128, 129, 65406, 65535};  // 65406 / 257 = 254.498
  CHECK(to_8_bit(in).pixels == std::vector<std::uint8_t>{0, 0, 1, 254, 255});
}

TEST_CASE("JPEG output decodes to the same shape", "[image_io]") {
  TempDir dir;
  const Image in = test::random_image(40, 30, 3, 3);
  write_image(in, dir.file("x.JPEG"));
  const ReadImage back = read_image(dir.file("x.JPEG"));
  CHECK(back.image.width == 40);
  CHECK(back.image.height == 30);
}

TEST_CASE("format from extension", "[image_io]") {
  CHECK(format_for_path("a.PNG") == ImageFormat::kPng);
  CHECK(format_for_path("dir.v2/a.jpeg") == ImageFormat::kJpeg);
  CHECK(format_for_path("a.tga") == ImageFormat::kTga);
  CHECK_FALSE(format_for_path("a.gif"));
  CHECK_FALSE(format_for_path("dir.png/noext"));
}

TEST_CASE("unreadable inputs are IoErrors naming the file", "[image_io]") {
  TempDir dir;
  SECTION("missing") {
    CHECK_THROWS_WITH(read_image(dir.file("none.png")),
                      Catch::Contains("none.png") && Catch::Contains("No such file"));
  }
  SECTION("text named .png") {
    write_bytes(dir.file("text.png"), "this is not an image\n");
    CHECK_THROWS_AS(read_image(dir.file("text.png")), IoError);
  }
  SECTION("empty") {
    write_bytes(dir.file("empty.png"), "");
    CHECK_THROWS_WITH(read_image(dir.file("empty.png")), Catch::Contains("empty"));
  }
  SECTION("truncated PNG") {
    write_image(test::random_image(64, 64, 3, 9), dir.file("full.png"));
    const std::string full = read_bytes(dir.file("full.png"));
    write_bytes(dir.file("cut.png"), full.substr(0, full.size() / 2));
    CHECK_THROWS_AS(read_image(dir.file("cut.png")), IoError);
  }
  SECTION("a directory") { CHECK_THROWS_AS(read_image(dir.path), IoError); }
}

TEST_CASE("writes are atomic and never leave partial files", "[image_io]") {
  TempDir dir;
  const Image image = test::random_image(8, 8, 3, 5);
  SECTION("missing directory") {
    CHECK_THROWS_AS(write_image(image, dir.file("missing/out.png")), IoError);
    CHECK_THROWS_AS(check_writable_destination(dir.file("missing/out.png")), IoError);
    CHECK(files_in(dir.path) == 0);
  }
  SECTION("unknown extension is a usage error and writes nothing") {
    CHECK_THROWS_AS(write_image(image, dir.file("out.gif")), UsageError);
    CHECK(files_in(dir.path) == 0);
  }
  SECTION("an existing file is replaced whole, keeping its mode, and no temporary remains") {
    write_bytes(dir.file("out.png"), "old");
    ::chmod(dir.file("out.png").c_str(), 0640);
    write_image(image, dir.file("out.png"));
    CHECK(read_image(dir.file("out.png")).image.pixels == image.pixels);
    struct stat info {};
    ::stat(dir.file("out.png").c_str(), &info);
    CHECK((info.st_mode & 0777) == 0640);
    CHECK(files_in(dir.path) == 1);
  }
  SECTION("a destination that is a directory is refused") {
    ::mkdir(dir.file("d.png").c_str(), 0755);
    CHECK_THROWS_AS(check_writable_destination(dir.file("d.png")), IoError);
  }
}
