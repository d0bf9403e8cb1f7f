// png_deflate.cpp — libdeflate behind stb_image_write's compression hook.
#include "png_deflate.hpp"

#include <libdeflate.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <memory>

namespace gpublur {
namespace {

struct CompressorFree {
  void operator()(libdeflate_compressor* c) const noexcept { libdeflate_free_compressor(c); }
};

}  // namespace

unsigned char* zlib_compress_for_png(unsigned char* data, int data_len, int* out_len, int level) {
  level = std::clamp(level, kMinPngLevel, kMaxPngLevel);
  const std::unique_ptr<libdeflate_compressor, CompressorFree> compressor(
      libdeflate_alloc_compressor(level));
  if (!compressor || data_len < 0) return nullptr;
  const std::size_t bound =
      libdeflate_zlib_compress_bound(compressor.get(), static_cast<std::size_t>(data_len));
  if (bound > static_cast<std::size_t>(INT_MAX)) return nullptr;
  auto* out = static_cast<unsigned char*>(std::malloc(bound));  // stb releases it with free()
  if (!out) return nullptr;
  const std::size_t size = libdeflate_zlib_compress(compressor.get(), data,
                                                    static_cast<std::size_t>(data_len), out, bound);
  if (size == 0) {
    std::free(out);
    return nullptr;
  }
  *out_len = static_cast<int>(size);
  return out;
}

}  // namespace gpublur
