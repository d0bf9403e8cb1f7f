// image_decode.cpp — reading files and dispatching to the format's decoder.
#include "codecs/image_decode.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/errors.hpp"
#include "base/large_buffer.hpp"
#include "base/stop_signals.hpp"
#include "base/utf8.hpp"
#include "codecs/codec_registry.hpp"

namespace gpublur {
namespace {

[[noreturn]] void cannot_read(const std::string& path, const std::string& why) {
  throw IoError("cannot read '" + printable(path) + "': " + why);
}

// A descriptor, closed at scope exit where it was opened here (standard input is left open).
class Fd {
 public:
  Fd(int fd, bool owned) : fd_(fd), owned_(owned) {}
  ~Fd() {
    if (owned_ && fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
  bool owned_;
};

// Enough for every format's signature (TGA's header, the longest looked at, is 18 bytes).
constexpr std::size_t kSniffBytes = 4096;
// Reads go in pieces of at most this size, so a stop signal is heard between them.
constexpr std::size_t kChunkBytes = std::size_t{16} << 20;
// A stream's first piece after its start: most files end within it, and it costs no more.
constexpr std::size_t kFirstPieceBytes = std::size_t{64} << 10;

// Reads `size` bytes, fewer only where the file ends.
std::size_t read_up_to(int fd, std::uint8_t* out, std::size_t size, const std::string& name) {
  std::size_t done = 0;
  while (done < size) {
    wait_readable(fd);  // a pipe or FIFO may wait for ever: a stop signal ends the wait
    const ssize_t n = ::read(fd, out + done, std::min(size - done, kChunkBytes));
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0) cannot_read(name, std::strerror(errno));
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
  }
  return done;
}

[[noreturn]] void not_an_image(const std::string& name) {
  std::string labels;
  for (const Codec& codec : codecs())
    labels += (labels.empty() ? "" : ", ") + std::string(codec.label);
  cannot_read(name, "not an image gpublur reads (" + labels + ")");
}

// Appends the rest of a stream to `bytes`, refusing it past `cap` bytes in all. The pieces are
// joined once at the end, so the read never holds more than twice what it read.
void read_rest(int fd, std::vector<std::uint8_t>& bytes, std::uint64_t cap, const std::string& name,
               const char* cap_reason) {
  std::vector<std::vector<std::uint8_t>> pieces;
  std::uint64_t total = bytes.size();
  for (std::size_t size = kFirstPieceBytes;; size = std::min(2 * size, kChunkBytes)) {
    std::vector<std::uint8_t> piece(size);
    piece.resize(read_up_to(fd, piece.data(), piece.size(), name));
    total += piece.size();
    if (total > cap) {
      cannot_read(name, "longer than " + std::to_string(cap) + " bytes, " + cap_reason);
    }
    const bool ended = piece.size() < size;
    if (!piece.empty()) pieces.push_back(std::move(piece));
    if (ended) break;
  }
  bytes.reserve(static_cast<std::size_t>(total));
  for (std::vector<std::uint8_t>& piece : pieces) {
    bytes.insert(bytes.end(), piece.begin(), piece.end());
    piece = {};
  }
}

// The file's first bytes, alone: refused here unless they look like an image.
std::vector<std::uint8_t> read_start(int fd, const std::string& path, const std::string& name) {
  std::vector<std::uint8_t> start(kSniffBytes);
  start.resize(read_up_to(fd, start.data(), start.size(), name));
  if (start.empty()) cannot_read(name, "file is empty");
  if (!sniff_format(start.data(), start.size(), path)) not_an_image(name);
  return start;
}

// A regular file from its current offset: its size read at once (no growing buffer), then what
// was appended while it was read, if anything, up to kMaxFileBytes.
std::vector<std::uint8_t> read_regular(int fd, const std::string& path, const std::string& name,
                                       std::uint64_t size) {
  std::vector<std::uint8_t> start = read_start(fd, path, name);
  if (start.size() < kSniffBytes) return start;
  std::vector<std::uint8_t> bytes;
  const std::size_t length = std::max<std::size_t>(static_cast<std::size_t>(size), start.size());
  reserve_large(bytes, length);
  bytes.resize(length);
  std::copy(start.begin(), start.end(), bytes.begin());
  start = {};
  const std::size_t rest = bytes.size() - kSniffBytes;
  bytes.resize(kSniffBytes + read_up_to(fd, bytes.data() + kSniffBytes, rest, name));
  read_rest(fd, bytes, kMaxFileBytes, name, "the most gpublur reads of a file");
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

std::uint64_t max_stream_bytes(const DecodeLimits& limits) {
  if (limits.max_bytes == 0) return kMaxFileBytes;
  return std::min(kMaxFileBytes, limits.max_bytes + (std::uint64_t{64} << 20));
}

std::vector<std::uint8_t> read_file(const std::string& path, const DecodeLimits& limits) {
  const bool standard_input = path == "-";
  const std::string name = standard_input ? "standard input" : path;
  // O_NONBLOCK: opening a FIFO would wait for a writer, where no stop signal could end the wait.
  const int raw =
      standard_input ? STDIN_FILENO : ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (raw < 0) cannot_read(name, std::strerror(errno));
  const Fd fd(raw, !standard_input);
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) cannot_read(name, std::strerror(errno));
  if (S_ISDIR(info.st_mode)) cannot_read(name, "is a directory");
  if (S_ISREG(info.st_mode)) {
    const off_t at = standard_input ? ::lseek(fd.get(), 0, SEEK_CUR) : 0;
    const auto size = static_cast<std::uint64_t>(info.st_size - std::max<off_t>(at, 0));
    if (size > kMaxFileBytes) cannot_read(name, "larger than 4 GiB");
    return read_regular(fd.get(), path, name, size);
  }
  std::vector<std::uint8_t> bytes = read_start(fd.get(), path, name);
  if (bytes.size() == kSniffBytes) {
    read_rest(fd.get(), bytes, max_stream_bytes(limits), name,
              "the most gpublur reads from a pipe or device (--max-bytes and 64 MiB)");
  }
  return bytes;
}

DecodedImage decode_image(const std::vector<std::uint8_t>& bytes, const std::string& name,
                          const DecodeLimits& limits) {
  if (bytes.empty()) cannot_read(name, "file is empty");
  const std::optional<ImageFormat> format = sniff_format(bytes.data(), bytes.size(), name);
  if (!format) not_an_image(name);
  try {
    return codec_of(*format).decode(bytes.data(), bytes.size(), limits);
  } catch (const IoError& e) {
    cannot_read(name, printable(e.what()));
  } catch (const std::bad_alloc&) {
    cannot_read(name, "out of memory decoding it");
  }
}

DecodedImage read_image(const std::string& path, const DecodeLimits& limits) {
  return decode_image(read_file(path, limits), path, limits);
}

}  // namespace gpublur
