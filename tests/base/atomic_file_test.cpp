// atomic_file_test.cpp — where an output's bytes land: regular files replaced whole, symbolic
// links written through to their target, character devices and FIFOs written directly; modes
// from the umask (never read by racing threads) or the replaced file, never its setuid bits.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "base/atomic_file.hpp"
#include "base/errors.hpp"
#include "support/temp_dir.hpp"
#include "support/test_bytes.hpp"

using namespace gpublur;

namespace {

namespace fs = std::filesystem;
using test::Bytes;
using test::read_bytes;
using test::TempDir;
using test::write_bytes;

const Bytes kNew{'n', 'e', 'w'};

void write(const std::string& path) { write_file_atomically(path, kNew, Durability::kRenamed); }

mode_t mode_of(const std::string& path) {
  struct stat info {};
  REQUIRE(::lstat(path.c_str(), &info) == 0);
  return info.st_mode;
}

std::size_t temporaries_in(const std::string& dir) {
  std::size_t n = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().filename().string().find(".gpublur-") != std::string::npos) ++n;
  }
  return n;
}

// Sets the process's umask for a scope.
struct Umask {
  mode_t old;
  explicit Umask(mode_t mask) : old(::umask(mask)) {}
  ~Umask() { ::umask(old); }
};

}  // namespace

TEST_CASE("a symbolic link is written through: the link stays, its target is replaced whole",
          "[atomic]") {
  TempDir dir;
  fs::create_directory(dir.file("real"));
  write_bytes(dir.file("real/target.png"), Bytes{'o', 'l', 'd'});
  ::chmod(dir.file("real/target.png").c_str(), 0640);
  SECTION("a relative link") {
    fs::create_symlink("real/target.png", dir.file("link.png"));
    write(dir.file("link.png"));
  }
  SECTION("a chain of links, one absolute") {
    fs::create_symlink(dir.file("real/target.png"), dir.file("hop.png"));
    fs::create_symlink("hop.png", dir.file("link.png"));
    write(dir.file("link.png"));
    CHECK(fs::is_symlink(dir.file("hop.png")));
  }
  CHECK(fs::is_symlink(dir.file("link.png")));
  CHECK(read_bytes(dir.file("real/target.png")) == kNew);
  CHECK((mode_of(dir.file("real/target.png")) & 07777) == 0640);
  CHECK(temporaries_in(dir.path) == 0);
  CHECK(temporaries_in(dir.file("real")) == 0);
}

TEST_CASE("a dangling link is written through: its target is created", "[atomic]") {
  TempDir dir;
  fs::create_directory(dir.file("real"));
  fs::create_symlink("real/new.png", dir.file("link.png"));
  CHECK_NOTHROW(check_writable_destination(dir.file("link.png")));
  write(dir.file("link.png"));
  CHECK(fs::is_symlink(dir.file("link.png")));
  CHECK(read_bytes(dir.file("real/new.png")) == kNew);
}

TEST_CASE("a link loop is an error naming the path", "[atomic]") {
  TempDir dir;
  fs::create_symlink("b.png", dir.file("a.png"));
  fs::create_symlink("a.png", dir.file("b.png"));
  CHECK_THROWS_AS(write(dir.file("a.png")), IoError);
  CHECK(fs::is_symlink(dir.file("a.png")));
  CHECK(temporaries_in(dir.path) == 0);
}

TEST_CASE("a character device is written directly, never replaced", "[atomic]") {
  // A node of its own (null's numbers, 1:3) in the test's directory, never the system's /dev/null:
  // a regression must not replace a device the machine needs. Making one takes CAP_MKNOD (root).
  TempDir dir;
  const std::string device = dir.file("null.png");
  if (::mknod(device.c_str(), S_IFCHR | 0666, ::makedev(1, 3)) != 0) {
    WARN("cannot make a device node here (needs root): not tested");
    return;
  }
  struct stat before {};
  REQUIRE(::stat(device.c_str(), &before) == 0);
  CHECK_NOTHROW(check_writable_destination(device));
  write(device);
  struct stat after {};
  REQUIRE(::stat(device.c_str(), &after) == 0);
  CHECK(S_ISCHR(after.st_mode));
  CHECK(after.st_ino == before.st_ino);
  CHECK(after.st_rdev == before.st_rdev);
  CHECK(temporaries_in(dir.path) == 0);
}

namespace {

// What a reader of the FIFO at `path`, there before the write, gets from it. The read end is
// opened first, without waiting, so the write finds its reader, and a FIFO wrongly replaced by a
// file gives nothing rather than a hang.
Bytes read_through_fifo(const std::string& fifo, const std::string& path) {
  const int fd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  REQUIRE(fd >= 0);
  write(path);
  Bytes got(16);
  const ssize_t n = ::read(fd, got.data(), got.size());
  ::close(fd);
  got.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  return got;
}

}  // namespace

TEST_CASE("a FIFO is written directly, to its reader", "[atomic]") {
  TempDir dir;
  const std::string fifo = dir.file("pipe.png");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_NOTHROW(check_writable_destination(fifo));  // without waiting for a reader
  CHECK(read_through_fifo(fifo, fifo) == kNew);
  CHECK(S_ISFIFO(mode_of(fifo)));
  CHECK(temporaries_in(dir.path) == 0);
}

TEST_CASE("a link to a FIFO is written through to the FIFO", "[atomic]") {
  TempDir dir;
  REQUIRE(::mkfifo(dir.file("pipe").c_str(), 0600) == 0);
  fs::create_symlink("pipe", dir.file("out.png"));
  CHECK(read_through_fifo(dir.file("pipe"), dir.file("out.png")) == kNew);
  CHECK(fs::is_symlink(dir.file("out.png")));
  CHECK(S_ISFIFO(mode_of(dir.file("pipe"))));
}

TEST_CASE("the replaced file's setuid, setgid and sticky bits are never copied", "[atomic]") {
  TempDir dir;
  write_bytes(dir.file("out.png"), Bytes{'o', 'l', 'd'});
  REQUIRE(::chmod(dir.file("out.png").c_str(), 07755) == 0);
  write(dir.file("out.png"));
  CHECK((mode_of(dir.file("out.png")) & 07777) == 0755);
}

TEST_CASE("a socket or a block device is refused", "[atomic]") {
  // A blurred image written over a disk would destroy it: block devices are refused. Only the
  // check runs on the block device (a node of the test's own, loop0's numbers), never a write.
  TempDir dir;
  const std::string disk = dir.file("disk.png");
  if (::mknod(disk.c_str(), S_IFBLK | 0600, ::makedev(7, 0)) == 0) {
    CHECK_THROWS_WITH(check_writable_destination(disk), Catch::Contains("block device"));
  } else {
    WARN("cannot make a device node here (needs root): block devices not tested");
  }
  const std::string socket_path = dir.file("socket.png");
  const int s = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  REQUIRE(socket_path.size() < sizeof address.sun_path);
  socket_path.copy(address.sun_path, socket_path.size());
  REQUIRE(::bind(s, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0);
  CHECK_THROWS_WITH(check_writable_destination(socket_path), Catch::Contains("socket"));
  CHECK_THROWS_WITH(write(socket_path), Catch::Contains("socket"));
  CHECK(S_ISSOCK(mode_of(socket_path)));
  ::close(s);
  CHECK_THROWS_WITH(check_writable_destination(dir.path), Catch::Contains("Is a directory"));
}

TEST_CASE("new files take 0666 less the umask, even written from many threads at once",
          "[atomic]") {
  // Reading the umask by setting it (umask(0), then back) let other threads create files, and
  // directories, with no umask at all in between: tens of a 400-file batch came out 0666.
  TempDir dir;
  const Umask mask(027);
  constexpr int kThreads = 16, kFiles = 100, kFilesPerDirectory = 10;
  for (int round = 0; round < 3; ++round) {
    const std::string base = dir.file("round" + std::to_string(round));
    fs::create_directory(base);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        std::string sub;
        for (int i = 0; i < kFiles; ++i) {
          if (i % kFilesPerDirectory == 0) {
            sub = base + "/" + std::to_string(t) + "-" + std::to_string(i);
            ::mkdir(sub.c_str(), 0777);
          }
          write(sub + "/" + std::to_string(i) + ".png");
        }
      });
    }
    for (std::thread& thread : threads) thread.join();
    int too_open = 0;
    for (const auto& entry : fs::recursive_directory_iterator(base)) {
      const mode_t mode = mode_of(entry.path().string()) & 07777;
      if (mode != (entry.is_directory() ? 0750u : 0640u)) ++too_open;
    }
    CHECK(too_open == 0);
  }
}

TEST_CASE("replace_file_atomically replaces the name, never what it leads to", "[atomic]") {
  // For gpublur's own files (kernel cache entries): a FIFO planted there would hang a write
  // through it, a link would redirect it.
  TempDir dir;
  REQUIRE(::mkfifo(dir.file("fifo").c_str(), 0600) == 0);
  replace_file_atomically(dir.file("fifo"), kNew, Durability::kRenamed);
  CHECK(read_bytes(dir.file("fifo")) == kNew);
  write_bytes(dir.file("target"), Bytes{'o', 'l', 'd'});
  fs::create_symlink("target", dir.file("link"));
  replace_file_atomically(dir.file("link"), kNew, Durability::kRenamed);
  CHECK_FALSE(fs::is_symlink(dir.file("link")));
  CHECK(read_bytes(dir.file("link")) == kNew);
  CHECK(read_bytes(dir.file("target")) == Bytes{'o', 'l', 'd'});
  CHECK(temporaries_in(dir.path) == 0);
}

TEST_CASE("the output directory is made once, or refused once", "[atomic]") {
  // An -o that could not be made gave one identical error per file: 400 lines for 400 files.
  TempDir dir;
  make_output_directory(dir.file("a/b/c"));
  CHECK(fs::is_directory(dir.file("a/b/c")));
  make_output_directory(dir.file("a/b/c"));  // already there
  write_bytes(dir.file("file"), Bytes{'x'});
  CHECK_THROWS_WITH(make_output_directory(dir.file("file")),
                    Catch::Contains("cannot create the output directory '" + dir.file("file")));
  CHECK_THROWS_AS(make_output_directory(dir.file("file/out")), IoError);
  fs::create_directory_symlink("a/b", dir.file("linked"));
  CHECK_NOTHROW(make_output_directory(dir.file("linked")));
  if (::geteuid() != 0) {  // root may write anywhere
    fs::create_directory(dir.file("locked"));
    ::chmod(dir.file("locked").c_str(), 0500);
    CHECK_THROWS_WITH(make_output_directory(dir.file("locked")),
                      Catch::Contains("Permission denied"));
  }
}

TEST_CASE("pieces are written one after another, to a file and into a FIFO alike", "[atomic]") {
  const TempDir dir;
  const Bytes header{'P', '5'}, empty, samples{1, 2, 3, 4};
  const std::vector<ByteSpan> pieces{{header.data(), header.size()},
                                     {empty.data(), empty.size()},
                                     {samples.data(), samples.size()}};
  write_bytes(dir.file("out.pgm"), kNew);
  write_file_atomically(dir.file("out.pgm"), pieces, Durability::kFlushed);
  CHECK(read_bytes(dir.file("out.pgm")) == Bytes{'P', '5', 1, 2, 3, 4});
  CHECK(temporaries_in(dir.path) == 0);
  REQUIRE(::mkfifo(dir.file("fifo").c_str(), 0600) == 0);
  Bytes read;
  std::thread reader([&] { read = read_bytes(dir.file("fifo")); });
  write_file_atomically(dir.file("fifo"), pieces, Durability::kRenamed);
  reader.join();
  CHECK(read == Bytes{'P', '5', 1, 2, 3, 4});
}

TEST_CASE("more pieces than one write takes, some empty, are written in order", "[atomic]") {
  // A bottom-up BMP's rows are a piece each, beside their padding: thousands of them.
  const TempDir dir;
  Bytes all(5000);
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<std::uint8_t>(i * 7 + i / 256);
  std::vector<ByteSpan> pieces;
  for (std::size_t i = 0; i < all.size(); ++i) {
    pieces.push_back({all.data() + i, 1});
    if (i % 3 == 0) pieces.push_back({all.data(), 0});
  }
  write_file_atomically(dir.file("out.bin"), pieces, Durability::kRenamed);
  CHECK((read_bytes(dir.file("out.bin")) == all));
  REQUIRE(::mkfifo(dir.file("fifo").c_str(), 0600) == 0);
  Bytes read;
  std::thread reader([&] { read = read_bytes(dir.file("fifo")); });
  write_file_atomically(dir.file("fifo"), pieces, Durability::kRenamed);
  reader.join();
  CHECK((read == all));
}
