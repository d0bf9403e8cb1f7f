// png_deflate.cpp — parallel zlib behind stb_image_write's compression hook.
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

}  // namespace

unsigned char* zlib_compress_for_png(unsigned char* data, int data_len, int* out_len, int level) {
  if (data_len < 0) return nullptr;
  level = std::clamp(level, kMinPngLevel, kMaxPngLevel);
  const auto size = static_cast<std::size_t>(data_len);
  const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t bands = std::clamp<std::size_t>(size / kMinBandBytes, 1, cores);
  const std::size_t band_size = (size + bands - 1) / bands;

  std::vector<std::vector<unsigned char>> parts(bands);
  std::vector<char> ok(bands, 0);
  auto work = [&](std::size_t b) {
    const std::size_t begin = std::min(size, b * band_size);
    const std::size_t end = std::min(size, begin + band_size);
    ok[b] = deflate_band(data + begin, end - begin, b + 1 == bands, level, parts[b]);
  };
  std::vector<std::thread> threads;
  for (std::size_t b = 1; b < bands; ++b) threads.emplace_back(work, b);
  work(0);
  for (auto& t : threads) t.join();
  if (std::find(ok.begin(), ok.end(), 0) != ok.end()) return nullptr;

  // zlib framing: header (deflate, 32 KiB window, check bits), the bands, Adler-32 of all input.
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

}  // namespace gpublur
