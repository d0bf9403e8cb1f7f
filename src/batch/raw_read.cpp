// raw_read.cpp — the header's bytes (a TIFF's directory and tag values), then the rows by preadv
// (one vector per row: its raster row, then its padding into scratch; a batch of a TIFF runs on
// past its strip only into a strip that follows it in the file), a piece of rows on each thread,
// each batch of rows reordered (raw_samples.hpp) by the thread that read it while its bytes are
// in the cache.
#include "batch/raw_read.hpp"

#include <sys/uio.h>
#include <unistd.h>

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <vector>

#include "base/regular_file.hpp"
#include "base/stop_signals.hpp"
#include "codecs/image_decode.hpp"
#include "codecs/raw_samples.hpp"

namespace gpublur {
namespace {

// Each thread reads a piece of about this size, whole rows.
constexpr std::size_t kPieceBytes = std::size_t{8} << 20;
// A piece's rows go in batches of about this size, reordered while they are in the cache.
constexpr std::size_t kBatchBytes = std::size_t{1} << 20;
// The most vectors one preadv takes.
constexpr std::size_t kMaxVectors = IOV_MAX;

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

// Fills the `count` vectors at `v` from `offset` on, all of them (the vectors are used up);
// false where the file ends first or a read fails.
bool read_vectors(int fd, iovec* v, std::size_t count, std::uint64_t offset) {
  while (count > 0) {
    const ssize_t n = ::preadv(fd, v, static_cast<int>(count), static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) {
      throw_if_stopped();
      continue;
    }
    if (n <= 0) return false;
    offset += static_cast<std::uint64_t>(n);
    auto left = static_cast<std::size_t>(n);
    for (; count > 0 && left >= v->iov_len; ++v, --count) left -= v->iov_len;
    if (count > 0) {
      v->iov_base = static_cast<std::uint8_t*>(v->iov_base) + left;
      v->iov_len -= left;
    }
  }
  return true;
}

// Reads the stored rows [first, end) into their raster rows and reorders them; false where the
// file ends first or a read fails. Sets `alpha` where the layout asks and some pixel has one.
bool read_rows(int fd, const RawLayout& layout, std::uint8_t* raster, std::size_t first,
               std::size_t end, std::atomic<bool>& alpha) {
  const auto row = static_cast<std::size_t>(layout.row_bytes());
  const auto padding = static_cast<std::size_t>(layout.stride) - row;
  std::vector<std::uint8_t> scratch(padding);  // every row's padding, read and dropped
  std::vector<iovec> v;
  v.reserve(kMaxVectors);
  const auto add = [&](void* data, std::size_t size) {
    if (!v.empty() && static_cast<std::uint8_t*>(v.back().iov_base) + v.back().iov_len == data) {
      v.back().iov_len += size;
    } else {
      v.push_back({data, size});
    }
  };
  const std::size_t batch =
      std::clamp<std::size_t>(kBatchBytes / layout.stride, 1, kMaxVectors / (padding > 0 ? 2 : 1));
  for (std::size_t at = first, rows = 0; at < end; at += rows) {
    rows = layout.run_from(at, std::min(batch, end - at));
    v.clear();
    for (std::size_t i = at; i < at + rows; ++i) {
      add(raster + layout.raster_row(i) * row, row);
      if (padding > 0) add(scratch.data(), padding);
    }
    if (!read_vectors(fd, v.data(), v.size(), layout.row_offset(at))) return false;
    // The batch's raster rows, one run whichever way they are stored.
    std::uint8_t* run =
        raster + std::min(layout.raster_row(at), layout.raster_row(at + rows - 1)) * row;
    reorder_samples(layout, run, rows * row);
    if (layout.alpha_if_any && !alpha.load(std::memory_order_relaxed) && any_alpha(run, rows * row))
      alpha = true;
  }
  return true;
}

}  // namespace

std::optional<RawRead> read_raw_image(const std::string& path, const DecodeLimits& limits) {
  if (path == "-") return std::nullopt;
  std::uint64_t file_bytes = 0;
  const FileDescriptor fd = open_regular_file(path, file_bytes);  // a FIFO or device: never opened
  if (!fd || file_bytes > kMaxFileBytes) return std::nullopt;
  // The header's bytes (PNM's, BMP's: the first 4 KiB; TIFF's directory and values, wherever).
  const ReadAt read_header = [&](std::uint64_t offset, std::size_t size, std::uint8_t* out) {
    return read_at(fd.get(), out, size, offset);
  };
  const std::optional<RawLayout> layout = raw_layout(read_header, file_bytes, limits);
  if (!layout) return std::nullopt;
  RawRead read{raw_image(*layout), file_bytes};
  auto* raster = static_cast<std::uint8_t*>(read.decoded.image.data());
  const auto height = static_cast<std::size_t>(layout->height);
  const std::size_t rows_a_piece =
      std::max<std::size_t>(1, kPieceBytes / static_cast<std::size_t>(layout->stride));
  const std::size_t pieces = (height + rows_a_piece - 1) / rows_a_piece;
  std::atomic<bool> whole{true}, alpha{false};
  // Isolated: while it waits for its pieces, the calling thread takes up no other image's work.
  tbb::this_task_arena::isolate([&] {
    tbb::parallel_for(std::size_t{0}, pieces, [&](std::size_t i) {
      throw_if_stopped();
      if (!whole.load(std::memory_order_relaxed)) return;
      const std::size_t first = i * rows_a_piece, end = std::min(height, first + rows_a_piece);
      if (!read_rows(fd.get(), *layout, raster, first, end, alpha)) whole = false;
    });
  });
  if (!whole) return std::nullopt;       // it shrank or failed: read_file says which
  if (layout->alpha_if_any && !alpha) {  // as BMP's decoder reads 32-bit pixels of no alpha
    read.decoded.image = without_alpha(read.decoded.image.get<Image>());
  }
  return read;
}

}  // namespace gpublur
