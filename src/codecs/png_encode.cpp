// png_encode.cpp — PNG's filters chosen row by row, libdeflate, and PNG's chunks.
#include "codecs/png_encode.hpp"

#include <libdeflate.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>

#include "base/errors.hpp"
#include "codecs/encode_options.hpp"

namespace gpublur {
namespace {

// PNG's filter types, as the byte before each filtered row names them.
enum Filter : std::uint8_t { kNone = 0, kSub = 1, kUp = 2, kAverage = 3, kPaeth = 4 };
constexpr int kFilters = 5;
// IDAT chunks of this size: a reader can check each chunk's CRC as it goes.
constexpr std::size_t kIdatChunkBytes = std::size_t{1} << 20;

struct CompressorDeleter {
  void operator()(libdeflate_compressor* c) const noexcept { libdeflate_free_compressor(c); }
};

void put32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  const std::uint8_t bytes[4] = {static_cast<std::uint8_t>(v >> 24),
                                 static_cast<std::uint8_t>(v >> 16),
                                 static_cast<std::uint8_t>(v >> 8), static_cast<std::uint8_t>(v)};
  out.insert(out.end(), bytes, bytes + 4);
}

// Appends one chunk: length, type, data, CRC-32 of type and data.
void chunk(std::vector<std::uint8_t>& out, const char* type, const std::uint8_t* data,
           std::size_t size) {
  if (size > 0x7fffffffu)
    throw IoError("a PNG chunk cannot hold " + std::to_string(size) + " bytes");
  put32(out, static_cast<std::uint32_t>(size));
  const std::size_t start = out.size();
  out.insert(out.end(), type, type + 4);
  if (size > 0) out.insert(out.end(), data, data + size);
  put32(out, libdeflate_crc32(0, out.data() + start, out.size() - start));
}

// Paeth's predictor: of left a, up b and up-left c, the one nearest a + b - c (ties: a, then b).
// Branch-free in 16-bit lanes (every difference fits), so the row loop vectorises 8 bytes wide
// even at -O2 on SSE2 (measured several times faster than the same in int, at -O3).
inline std::uint8_t paeth(std::int16_t a, std::int16_t b, std::int16_t c) {
  const auto p = static_cast<std::int16_t>(b - c), q = static_cast<std::int16_t>(a - c);
  const auto r = static_cast<std::int16_t>(p + q);
  const auto pa = static_cast<std::int16_t>(p < 0 ? -p : p);
  const auto pb = static_cast<std::int16_t>(q < 0 ? -q : q);
  const auto pc = static_cast<std::int16_t>(r < 0 ? -r : r);
  const std::int16_t b_or_c = pb <= pc ? b : c;
  return static_cast<std::uint8_t>(pa <= pb && pa <= pc ? a : b_or_c);
}

// Row y's bytes as PNG stores them: 8-bit samples as they are, 16-bit ones big-endian (written
// into `scratch`, a row at a time, instead of a big-endian copy of the whole image).
const std::uint8_t* png_row(const Image& image, int y, std::vector<std::uint8_t>&) {
  return image.pixels.data() + static_cast<std::size_t>(y) * image.row_bytes();
}

const std::uint8_t* png_row(const Image16& image, int y, std::vector<std::uint8_t>& scratch) {
  static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "PNG's 16-bit samples are big-endian");
  const std::size_t n = image.row_samples();
  scratch.resize(2 * n);
  const std::uint16_t* samples = image.pixels.data() + static_cast<std::size_t>(y) * n;
  for (std::size_t i = 0; i < n; ++i) {
    scratch[2 * i] = static_cast<std::uint8_t>(samples[i] >> 8);
    scratch[2 * i + 1] = static_cast<std::uint8_t>(samples[i]);
  }
  return scratch.data();
}

// Row `cur` filtered by `filter` into `out` (n bytes, bpp a pixel; `above` is the row before, or
// zeros). Left of the first pixel the predictors see zeros. The loops after the first pixel read
// through restrict pointers, so they vectorise.
void filter_row(Filter filter, const std::uint8_t* __restrict cur,
                const std::uint8_t* __restrict above, std::uint8_t* __restrict out, std::size_t bpp,
                std::size_t n) {
  const std::size_t first = std::min(bpp, n);
  switch (filter) {
    case kNone:
      std::memcpy(out, cur, n);
      return;
    case kSub:
      std::memcpy(out, cur, first);
      for (std::size_t i = bpp; i < n; ++i)
        out[i] = static_cast<std::uint8_t>(cur[i] - cur[i - bpp]);
      return;
    case kUp:
      for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<std::uint8_t>(cur[i] - above[i]);
      return;
    case kAverage:
      for (std::size_t i = 0; i < first; ++i)
        out[i] = static_cast<std::uint8_t>(cur[i] - (above[i] >> 1));
      for (std::size_t i = bpp; i < n; ++i) {
        out[i] = static_cast<std::uint8_t>(cur[i] - ((cur[i - bpp] + above[i]) >> 1));
      }
      return;
    case kPaeth:
      for (std::size_t i = 0; i < first; ++i)
        out[i] = static_cast<std::uint8_t>(cur[i] - above[i]);  // a = c = 0: Paeth predicts b
      for (std::size_t i = bpp; i < n; ++i) {
        out[i] = static_cast<std::uint8_t>(cur[i] - paeth(cur[i - bpp], above[i], above[i - bpp]));
      }
      return;
  }
}

// A filtered byte's cost in libpng's heuristic: its value read as signed, |-128..127|.
inline std::uint32_t cost(int filtered) {
  const auto v = static_cast<std::uint8_t>(filtered);
  return std::min<std::uint8_t>(v, static_cast<std::uint8_t>(-v));
}

// Each filter's cost for row `cur`: the sum of its filtered bytes' costs, computed in one pass
// that stores nothing (the chosen filter is then applied once). The smaller, the more the row is
// made of small differences, which deflate codes shortest.
std::array<std::uint32_t, kFilters> filter_costs(const std::uint8_t* __restrict cur,
                                                 const std::uint8_t* __restrict above,
                                                 std::size_t bpp, std::size_t n) {
  std::uint32_t none = 0, sub = 0, up = 0, average = 0, paeth_sum = 0;
  for (std::size_t i = 0; i < std::min(bpp, n); ++i) {  // left of the row: zeros
    none += cost(cur[i]), sub += cost(cur[i]), up += cost(cur[i] - above[i]);
    average += cost(cur[i] - (above[i] >> 1)), paeth_sum += cost(cur[i] - above[i]);
  }
  const auto add = [&](std::size_t i) {
    const int x = cur[i], a = cur[i - bpp], b = above[i], c = above[i - bpp];
    none += cost(x);
    sub += cost(x - a);
    up += cost(x - b);
    average += cost(x - ((a + b) >> 1));
    paeth_sum += cost(x - paeth(static_cast<std::int16_t>(a), static_cast<std::int16_t>(b),
                                static_cast<std::int16_t>(c)));
  };
  for (std::size_t i = bpp; i < n; ++i) add(i);
  return {none, sub, up, average, paeth_sum};
}

// The filtered scanlines: each row's filter byte, then the row filtered by whichever of PNG's
// five filters gives it the smallest row_cost (libpng's default choice for every image but a
// palette's; Paeth alone, gpublur's choice before, made smooth images' files larger than OpenCV's).
// Level 0 stores rows unfiltered: stored data gains nothing from a filter.
template <typename Sample>
std::vector<std::uint8_t> filter_rows(const Raster<Sample>& image, std::size_t bpp, bool filter) {
  const std::size_t row_bytes = image.row_bytes();
  const int height = image.height;
  std::vector<std::uint8_t> out((row_bytes + 1) * static_cast<std::size_t>(height));
  std::vector<std::uint8_t> scratch[2];
  const std::vector<std::uint8_t> zeros(row_bytes, 0);
  const std::uint8_t* up = zeros.data();
  for (int y = 0; y < height; ++y) {
    const std::uint8_t* cur = png_row(image, y, scratch[y % 2]);
    std::uint8_t* dst = out.data() + static_cast<std::size_t>(y) * (row_bytes + 1);
    const std::uint8_t* above = up;
    up = cur;
    if (!filter) {
      *dst = kNone;
      std::memcpy(dst + 1, cur, row_bytes);
      continue;
    }
    const std::array<std::uint32_t, kFilters> costs = filter_costs(cur, above, bpp, row_bytes);
    const auto best =
        static_cast<Filter>(std::min_element(costs.begin(), costs.end()) - costs.begin());
    *dst = best;
    filter_row(best, cur, above, dst + 1, bpp, row_bytes);
  }
  return out;
}

// One zlib stream of `data`. The output buffer starts at half the input (photos compress to about
// a third) and grows to libdeflate's bound only where that was too small.
std::vector<std::uint8_t> deflate(const std::vector<std::uint8_t>& data, int level) {
  std::unique_ptr<libdeflate_compressor, CompressorDeleter> compressor(
      libdeflate_alloc_compressor(level));
  if (!compressor) throw IoError("cannot encode PNG: no memory for libdeflate");
  const std::size_t bound = libdeflate_zlib_compress_bound(compressor.get(), data.size());
  std::vector<std::uint8_t> out(level == 0 ? bound : data.size() / 2 + 1024);
  std::size_t size =
      libdeflate_zlib_compress(compressor.get(), data.data(), data.size(), out.data(), out.size());
  if (size == 0) {
    out = {};  // freed first: a resize would copy what the failed attempt wrote
    out.resize(bound);
    size = libdeflate_zlib_compress(compressor.get(), data.data(), data.size(), out.data(), bound);
    if (size == 0) throw IoError("cannot encode PNG: libdeflate's output did not fit its bound");
  }
  out.resize(size);
  return out;
}

void ihdr(std::vector<std::uint8_t>& out, int width, int height, int bits, int channels) {
  static const std::uint8_t kColorType[5] = {0, 0, 4, 2, 6};  // by channel count
  std::vector<std::uint8_t> body;
  put32(body, static_cast<std::uint32_t>(width));
  put32(body, static_cast<std::uint32_t>(height));
  body.insert(body.end(), {static_cast<std::uint8_t>(bits), kColorType[channels], 0, 0, 0});
  chunk(out, "IHDR", body.data(), body.size());
}

void metadata_chunks(std::vector<std::uint8_t>& out, const Metadata& m) {
  if (icc_to_write(
          m)) {  // iCCP: a name, its NUL, compression method 0, the zlib-compressed profile
    std::vector<std::uint8_t> body = {'I', 'C', 'C', ' ', 'p', 'r', 'o', 'f', 'i', 'l', 'e', 0, 0};
    const std::vector<std::uint8_t> profile = deflate(m.icc, 9);
    body.insert(body.end(), profile.begin(), profile.end());
    chunk(out, "iCCP", body.data(), body.size());
  }
  if (m.density && m.density->x > 0 && m.density->y > 0) {  // pHYs: per metre, or aspect only
    const double to_metre = m.density->unit == Density::Unit::kInch         ? 100.0 / 2.54
                            : m.density->unit == Density::Unit::kCentimetre ? 100.0
                                                                            : 1.0;
    std::vector<std::uint8_t> body;
    put32(body, static_cast<std::uint32_t>(std::lround(m.density->x * to_metre)));
    put32(body, static_cast<std::uint32_t>(std::lround(m.density->y * to_metre)));
    body.push_back(m.density->unit == Density::Unit::kNone ? 0 : 1);
    chunk(out, "pHYs", body.data(), body.size());
  }
  if (!m.exif.empty()) chunk(out, "eXIf", m.exif.data(), m.exif.size());
  if (!m.xmp.empty()) {  // iTXt as the XMP specification places it: uncompressed, no language
    // The keyword and its NUL, compression flag and method 0, an empty language tag and
    // translated keyword (a NUL each).
    static const char kXmpHeader[] = "XML:com.adobe.xmp\0\0\0\0";
    std::vector<std::uint8_t> body(kXmpHeader, kXmpHeader + sizeof kXmpHeader);
    body.insert(body.end(), m.xmp.begin(), m.xmp.end());
    chunk(out, "iTXt", body.data(), body.size());
  }
}

// The PNG file of `image`; `owned`, where given, is `image` itself, freed once its rows are
// filtered (before the deflate, whose output then takes its place): the encoder holds the image and
// its filtered rows, then the filtered rows and the compressed data, never all three.
template <typename Sample>
std::vector<std::uint8_t> encode(const Raster<Sample>& image, Raster<Sample>* owned, int level,
                                 const Metadata& metadata) {
  const int bits = 8 * static_cast<int>(sizeof(Sample));
  if (image.channels < 1 || image.channels > 4 || image.width < 1 || image.height < 1) {
    throw IoError("cannot encode a PNG of " + std::to_string(image.width) + "x" +
                  std::to_string(image.height) + "x" + std::to_string(image.channels));
  }
  if (level < kMinPngLevel || level > kMaxPngLevel) {
    throw InternalError("PNG level " + std::to_string(level) + " out of range");
  }
  const int width = image.width, height = image.height, channels = image.channels;
  const std::size_t bpp = static_cast<std::size_t>(channels) * sizeof(Sample);
  std::vector<std::uint8_t> filtered = filter_rows(image, bpp, level > 0);
  if (owned) *owned = Raster<Sample>{};
  std::vector<std::uint8_t> idat = deflate(filtered, level);
  filtered = {};
  std::vector<std::uint8_t> out = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  out.reserve(idat.size() + metadata.icc.size() + metadata.exif.size() + metadata.xmp.size() +
              1024);
  ihdr(out, width, height, bits, channels);
  metadata_chunks(out, metadata);
  for (std::size_t at = 0; at < idat.size(); at += kIdatChunkBytes) {
    chunk(out, "IDAT", idat.data() + at, std::min(kIdatChunkBytes, idat.size() - at));
  }
  chunk(out, "IEND", nullptr, 0);
  return out;
}

}  // namespace

std::vector<std::uint8_t> encode_png(const Image& image, int level, const Metadata& metadata) {
  return encode(image, static_cast<Image*>(nullptr), level, metadata);
}

std::vector<std::uint8_t> encode_png(const Image16& image, int level, const Metadata& metadata) {
  return encode(image, static_cast<Image16*>(nullptr), level, metadata);
}

std::vector<std::uint8_t> encode_png(Image&& image, int level, const Metadata& metadata) {
  return encode(image, &image, level, metadata);
}

std::vector<std::uint8_t> encode_png(Image16&& image, int level, const Metadata& metadata) {
  return encode(image, &image, level, metadata);
}

}  // namespace gpublur
