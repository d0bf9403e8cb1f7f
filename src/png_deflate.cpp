// png_deflate.cpp — parallel Paeth filtering and zlib behind stb_image_write's hook.
#include "png_deflate.hpp"

#include <zlib.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace gpublur {
namespace {

// Bands smaller than this cost more in lost matches and thread start-up than they gain.
constexpr std::size_t kMinBandBytes = 256 * 1024;
constexpr unsigned char kPaeth = 4;

struct RowLayout {
  std::size_t row_bytes = 0;
  int bytes_per_pixel = 0;
};
thread_local RowLayout current_rows;  // row_bytes 0: none set

unsigned char paeth_predictor(int a, int b, int c) {
  const int p = a + b - c;
  const int pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
  return static_cast<unsigned char>(pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
}

// PNG row y (filter byte + pixels) Paeth-filtered from the unfiltered rows in `raw` (same
// layout). Reads only `raw`, so bands can filter concurrently. Outside the image the predictor
// sees zeros, where Paeth reduces to the left byte (first row) or the byte above (first pixel).
void paeth_row(const unsigned char* raw, unsigned char* out, std::size_t y, const RowLayout& rows) {
  const std::size_t stride = rows.row_bytes + 1;
  const std::size_t n = rows.row_bytes;
  const std::size_t bpp = std::min(n, static_cast<std::size_t>(rows.bytes_per_pixel));
  const unsigned char* cur = raw + y * stride + 1;
  unsigned char* dst = out + y * stride + 1;
  dst[-1] = kPaeth;
  if (y == 0) {
    for (std::size_t i = 0; i < bpp; ++i) dst[i] = cur[i];
    for (std::size_t i = bpp; i < n; ++i) dst[i] = static_cast<unsigned char>(cur[i] - cur[i - bpp]);
    return;
  }
  const unsigned char* up = cur - stride;
  for (std::size_t i = 0; i < bpp; ++i) dst[i] = static_cast<unsigned char>(cur[i] - up[i]);
  for (std::size_t i = bpp; i < n; ++i) {
    dst[i] = static_cast<unsigned char>(cur[i] - paeth_predictor(cur[i - bpp], up[i], up[i - bpp]));
  }
}

// Raw deflate of one band. Every band but the last ends with a sync flush: an empty stored
// block that leaves the stream byte-aligned and open, so the next band's blocks can follow.
bool deflate_band(const unsigned char* data, std::size_t size, bool last, int level,
                  std::vector<unsigned char>& out) {
  z_stream z{};
  if (deflateInit2(&z, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) return false;
  out.resize(deflateBound(&z, static_cast<uLong>(size)) + 16);
  z.next_in = const_cast<unsigned char*>(data);
  z.avail_in = static_cast<uInt>(size);
  z.next_out = out.data();
  z.avail_out = static_cast<uInt>(out.size());
  const int status = deflate(&z, last ? Z_FINISH : Z_SYNC_FLUSH);
  const bool ok = last ? status == Z_STREAM_END : (status == Z_OK && z.avail_in == 0);
  out.resize(z.total_out);
  deflateEnd(&z);
  return ok;
}

// zlib framing: header (deflate, 32 KiB window, check bits), the bands, Adler-32 of `data`.
unsigned char* frame(const std::vector<std::vector<unsigned char>>& parts,
                     const unsigned char* data, std::size_t size, int* out_len) {
  std::size_t total = 2 + 4;
  for (const auto& p : parts) total += p.size();
  if (total > static_cast<std::size_t>(INT_MAX)) return nullptr;
  auto* out = static_cast<unsigned char*>(std::malloc(total));  // stb releases it with free()
  if (!out) return nullptr;
  out[0] = 0x78;
  out[1] = 0x01;
  std::size_t pos = 2;
  for (const auto& p : parts) {
    std::memcpy(out + pos, p.data(), p.size());
    pos += p.size();
  }
  const uLong adler = adler32(adler32(0, nullptr, 0), data, static_cast<uInt>(size));
  for (int i = 3; i >= 0; --i) out[pos++] = static_cast<unsigned char>(adler >> (8 * i));
  *out_len = static_cast<int>(total);
  return out;
}

}  // namespace

ScopedPngRows::ScopedPngRows(std::size_t row_bytes, int bytes_per_pixel) {
  current_rows = RowLayout{row_bytes, bytes_per_pixel};
}

ScopedPngRows::~ScopedPngRows() { current_rows = RowLayout{}; }

unsigned char* zlib_compress_for_png(unsigned char* data, int data_len, int* out_len, int level) {
  if (data_len < 0) return nullptr;
  level = std::clamp(level, kMinPngLevel, kMaxPngLevel);
  const auto size = static_cast<std::size_t>(data_len);
  const RowLayout rows = current_rows;
  const bool filter = rows.row_bytes > 0 && size % (rows.row_bytes + 1) == 0;
  const std::size_t stride = filter ? rows.row_bytes + 1 : 1;  // bands start on whole rows
  const std::size_t units = size / stride;
  const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t bands = std::clamp<std::size_t>(
      size / kMinBandBytes, 1, std::min(cores, std::max<std::size_t>(units, 1)));
  const std::size_t units_per_band = (units + bands - 1) / bands;

  std::vector<unsigned char> filtered(filter ? size : 0);
  const unsigned char* source = filter ? filtered.data() : data;
  std::vector<std::vector<unsigned char>> parts(bands);
  std::vector<char> ok(bands, 0);
  auto work = [&](std::size_t b) {
    const std::size_t first = std::min(units, b * units_per_band);
    const std::size_t last = std::min(units, first + units_per_band);
    if (filter) {
      for (std::size_t y = first; y < last; ++y) paeth_row(data, filtered.data(), y, rows);
    }
    const std::size_t end = b + 1 == bands ? size : last * stride;
    ok[b] = deflate_band(source + first * stride, end - first * stride, b + 1 == bands, level,
                         parts[b]);
  };
  std::vector<std::thread> threads;
  for (std::size_t b = 1; b < bands; ++b) threads.emplace_back(work, b);
  work(0);
  for (auto& t : threads) t.join();
  if (std::find(ok.begin(), ok.end(), 0) != ok.end()) return nullptr;
  return frame(parts, source, size, out_len);
}

}  // namespace gpublur
