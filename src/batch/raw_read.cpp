// raw_read.cpp — the header's bytes, then the samples by pread, a piece on each thread.
#include "batch/raw_read.hpp"

#include <unistd.h>

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <cerrno>

#include "base/regular_file.hpp"
#include "base/stop_signals.hpp"
#include "codecs/image_decode.hpp"
#include "codecs/raw_samples.hpp"

namespace gpublur {
namespace {

// The bytes looked at for a header: every PNM header gpublur writes, and all but those padded
// with long comments (read the ordinary way).
constexpr std::size_t kHeaderBytes = 4096;
// Each thread reads a piece of this size (even: 16-bit samples are swapped piece by piece).
constexpr std::size_t kPieceBytes = std::size_t{8} << 20;

// Reads `size` bytes at `offset`; false where the file ends first or a read fails.
bool read_at(int fd, std::uint8_t* out, std::size_t size, std::uint64_t offset) {
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = ::pread(fd, out + done, size - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) {
      throw_if_stopped();
      continue;
    }
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

std::optional<RawRead> read_raw_image(const std::string& path, const DecodeLimits& limits) {
  if (path == "-") return std::nullopt;
  std::uint64_t file_bytes = 0;
  const FileDescriptor fd = open_regular_file(path, file_bytes);  // a FIFO or device: never opened
  if (!fd || file_bytes > kMaxFileBytes) return std::nullopt;
  std::uint8_t start[kHeaderBytes];
  const auto looked =
      static_cast<std::size_t>(std::min<std::uint64_t>(file_bytes, kHeaderBytes));
  if (looked == 0 || !read_at(fd.get(), start, looked, 0)) return std::nullopt;
  const std::optional<RawLayout> layout = raw_layout(start, looked, file_bytes, limits);
  if (!layout) return std::nullopt;
  RawRead read{raw_image(*layout), file_bytes};
  auto* samples = static_cast<std::uint8_t*>(read.decoded.image.data());
  const std::size_t bytes = static_cast<std::size_t>(layout->bytes());
  const std::size_t pieces = (bytes + kPieceBytes - 1) / kPieceBytes;
  std::atomic<bool> whole{true};
  // Isolated: while it waits for its pieces, the calling thread takes up no other image's work.
  tbb::this_task_arena::isolate([&] {
    tbb::parallel_for(std::size_t{0}, pieces, [&](std::size_t i) {
      throw_if_stopped();
      const std::size_t at = i * kPieceBytes, size = std::min(kPieceBytes, bytes - at);
      if (!whole.load(std::memory_order_relaxed)) return;
      if (!read_at(fd.get(), samples + at, size, layout->offset + at)) {
        whole = false;
        return;
      }
      if (layout->swapped) swap_sample_bytes(samples + at, size);
    });
  });
  if (!whole) return std::nullopt;  // it shrank or failed: read_file says which
  return read;
}

}  // namespace gpublur
