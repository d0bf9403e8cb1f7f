// image_decode.cpp — reading files and dispatching to the format's decoder.
#include "codecs/image_decode.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/errors.hpp"
#include "base/stop_signals.hpp"
#include "base/utf8.hpp"
#include "codecs/bmp_codec.hpp"
#include "codecs/gif_decode.hpp"
#include "codecs/hdr_codec.hpp"
#include "codecs/jpeg_codec.hpp"
#include "codecs/png_decode.hpp"
#include "codecs/pnm_codec.hpp"
#include "codecs/psd_decode.hpp"
#include "codecs/tga_codec.hpp"
#include "codecs/tiff_codec.hpp"
#include "codecs/webp_codec.hpp"

namespace gpublur {
namespace {

[[noreturn]] void cannot_read(const std::string& path, const std::string& why) {
  throw IoError("cannot read '" + printable(path) + "': " + why);
}

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// Reads to the end: a regular file's size is known, a stream's grows as it comes.
std::vector<std::uint8_t> read_all(int fd, const std::string& path, std::uint64_t expected) {
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(expected));
  std::size_t done = 0;
  for (;;) {
    if (done == bytes.size()) {
      if (bytes.size() >= kMaxFileBytes) cannot_read(path, "larger than 4 GiB");
      bytes.resize(std::max<std::size_t>(bytes.size() * 2, 1 << 16));
    }
    wait_readable(fd);  // a pipe or FIFO may wait for ever: a stop signal ends the wait
    const ssize_t n = ::read(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0) cannot_read(path, std::strerror(errno));
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
  }
  bytes.resize(done);
  return bytes;
}

}  // namespace

std::string printable(const std::string& text) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = utf8_sequence(text, i);
    if (n > 0 && !is_control(utf8_code_point(text, i, n))) {
      out.append(text, i, n);
      i += n;
      continue;
    }
    for (const std::size_t end = i + std::max<std::size_t>(n, 1); i < end; ++i) {
      const auto c = static_cast<unsigned char>(text[i]);
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

std::vector<std::uint8_t> read_file(const std::string& path) {
  if (path == "-") return read_all(STDIN_FILENO, "standard input", 0);
  // O_NONBLOCK: opening a FIFO would wait for a writer, where no stop signal could end the wait.
  const int raw = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (raw < 0) cannot_read(path, std::strerror(errno));
  const Fd fd(raw);
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) cannot_read(path, std::strerror(errno));
  if (S_ISDIR(info.st_mode)) cannot_read(path, "is a directory");
  const bool regular = S_ISREG(info.st_mode);
  if (regular && static_cast<std::uint64_t>(info.st_size) > kMaxFileBytes) {
    cannot_read(path, "larger than 4 GiB");
  }
  return read_all(fd.get(), path, regular ? static_cast<std::uint64_t>(info.st_size) : 0);
}

DecodedImage decode_image(const std::vector<std::uint8_t>& bytes, const std::string& name,
                          const DecodeLimits& limits) {
  if (bytes.empty()) cannot_read(name, "file is empty");
  const std::optional<ImageFormat> format = sniff_format(bytes.data(), bytes.size(), name);
  if (!format) {
    cannot_read(name,
                "not an image gpublur reads (PNG, JPEG, WebP, TIFF, BMP, TGA, PNM, HDR, GIF, PSD)");
  }
  const std::uint8_t* data = bytes.data();
  const std::size_t size = bytes.size();
  try {
    switch (*format) {
      case ImageFormat::kPng:
        return decode_png(data, size, limits);
      case ImageFormat::kJpeg: {
        ChromaSubsampling subsampling = ChromaSubsampling::kAuto;
        DecodedImage image = decode_jpeg(data, size, limits, &subsampling);
        image.subsampling = subsampling;
        return image;
      }
      case ImageFormat::kWebp:
        return decode_webp(data, size, limits);
      case ImageFormat::kTiff:
        return decode_tiff(data, size, limits);
      case ImageFormat::kBmp:
        return decode_bmp(data, size, limits);
      case ImageFormat::kTga:
        return decode_tga(data, size, limits);
      case ImageFormat::kPnm:
        return decode_pnm(data, size, limits);
      case ImageFormat::kHdr:
        return decode_hdr(data, size, limits);
      case ImageFormat::kGif:
        return decode_gif(data, size, limits);
      case ImageFormat::kPsd:
        return decode_psd(data, size, limits);
    }
  } catch (const IoError& e) {
    cannot_read(name, printable(e.what()));
  } catch (const std::bad_alloc&) {
    cannot_read(name, "out of memory decoding it");
  }
  cannot_read(name, "unknown format");
}

DecodedImage read_image(const std::string& path, const DecodeLimits& limits) {
  return decode_image(read_file(path), path, limits);
}

}  // namespace gpublur
