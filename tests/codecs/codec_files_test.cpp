// codec_files_test.cpp — the files around the codecs: unreadable inputs are errors naming the file
// and why, bytes from a file never reach the terminal raw, and writes are atomic, never leaving a
// partial file.
#include <catch2/catch.hpp>

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <thread>

#include "base/atomic_file.hpp"
#include "base/errors.hpp"
#include "codecs/image_decode.hpp"
#include "codecs/image_encode.hpp"
#include "support/reference_blur.hpp"
#include "support/temp_dir.hpp"
#include "support/test_bytes.hpp"

using namespace gpublur;

namespace {

using test::Bytes;
using test::read_bytes;
using test::TempDir;
using test::write_bytes;

DecodedImage decode(const Bytes& file, const std::string& name = "x") {
  return decode_image(file, name, DecodeLimits{});
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

TEST_CASE("unreadable inputs are IoErrors naming the file and why", "[codec]") {
  TempDir dir;
  CHECK_THROWS_WITH(read_image(dir.file("none.png")),
                    Catch::Contains("none.png") && Catch::Contains("No such file"));
  write_bytes(dir.file("text.png"), Bytes{'h', 'e', 'l', 'l', 'o', '\n'});
  CHECK_THROWS_WITH(read_image(dir.file("text.png")),
                    Catch::Contains("not an image gpublur reads"));
  write_bytes(dir.file("empty.png"), {});
  CHECK_THROWS_WITH(read_image(dir.file("empty.png")), Catch::Contains("empty"));
  write_image(test::random_image(64, 64, 3, 9), dir.file("full.png"));
  Bytes full = read_bytes(dir.file("full.png"));
  full.resize(full.size() / 2);
  write_bytes(dir.file("cut.png"), full);
  CHECK_THROWS_AS(read_image(dir.file("cut.png")), IoError);
  CHECK_THROWS_WITH(read_image(dir.path), Catch::Contains("is a directory"));
  // A FIFO is read to its end, like a pipe.
  REQUIRE(::mkfifo(dir.file("fifo").c_str(), 0600) == 0);
  const Bytes png = encode_image(test::random_image(3, 3, 3, 1), ImageFormat::kPng);
  std::thread writer([&] { write_bytes(dir.file("fifo"), png); });
  CHECK(read_file(dir.file("fifo")) == png);
  writer.join();
}

TEST_CASE("bytes from a file never reach the terminal raw", "[codec]") {
  CHECK(printable("a\nb\x1b[31mc") == "a\\x0ab\\x1b[31mc");
  CHECK(printable("caf\xc3\xa9") == "caf\xc3\xa9");  // UTF-8 stays
  CHECK(printable("\xff\xc3") == "\\xff\\xc3");      // anything else does not
  // A PNG whose chunk type holds control bytes: the message holds no raw control byte.
  Bytes png = encode_image(test::random_image(2, 2, 3, 1), ImageFormat::kPng);
  png[12] = '\x1b', png[13] = '\n';  // IHDR's type
  try {
    decode(png, "evil\x1b.png");
    FAIL("decoded");
  } catch (const IoError& e) {
    const std::string what = e.what();
    CHECK(std::none_of(what.begin(), what.end(),
                       [](char c) { return static_cast<unsigned char>(c) < 0x20; }));
  }
}

TEST_CASE("writes are atomic and never leave partial files", "[codec]") {
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
    write_bytes(dir.file("out.png"), Bytes{'o', 'l', 'd'});
    ::chmod(dir.file("out.png").c_str(), 0640);
    write_image(image, dir.file("out.png"));
    CHECK(read_image(dir.file("out.png")).image.get<Image>().pixels == image.pixels);
    struct stat info {};
    ::stat(dir.file("out.png").c_str(), &info);
    CHECK((info.st_mode & 0777) == 0640);
    CHECK(files_in(dir.path) == 1);
  }
  SECTION("a destination that is a directory is refused") {
    ::mkdir(dir.file("d.png").c_str(), 0755);
    CHECK_THROWS_AS(check_writable_destination(dir.file("d.png")), IoError);
  }
  SECTION("names up to the file system's limit") {
    const std::string name = std::string(251, 'n') + ".png";  // 255 bytes
    write_image(image, dir.file(name));
    CHECK(read_image(dir.file(name)).image.get<Image>().pixels == image.pixels);
    CHECK(files_in(dir.path) == 1);
  }
}
