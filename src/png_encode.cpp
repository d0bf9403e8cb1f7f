// png_encode.cpp — parallel banded deflate (zlib) inside chunks written by libpng.
// libpng reports errors by longjmp, so the code between setjmp and the end of writing holds no
// objects with destructors; errors become IoError afterwards.
#include "png_encode.hpp"

#include <png.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <thread>

#include "errors.hpp"

namespace gpublur {
namespace {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "16-bit samples are byte-swapped into PNG's big-endian order");

// Bands smaller than this cost more in lost matches and thread start-up than they gain.
constexpr std::size_t kMinBandBytes = 256 * 1024;
// Larger bands are split further, so that every band's IDAT chunk stays far below PNG's 2^31-1
// byte limit even when it does not compress.
constexpr std::size_t kMaxBandBytes = std::size_t{1} << 28;
// Filtered rows handed to zlib at a time: small enough to stay in the core's cache.
constexpr std::size_t kBatchBytes = 128 * 1024;

constexpr unsigned char kFilterNone = 0;
constexpr unsigned char kFilterPaeth = 4;

struct Layout {
  const std::uint8_t* pixels = nullptr;  // packed rows, host byte order
  std::size_t row_bytes = 0;             // bytes per row, without PNG's filter byte
  std::size_t bytes_per_pixel = 0;       // the filter's left neighbour distance
  int height = 0;
  bool swap16 = false;  // 16-bit samples: swap each into PNG's big-endian order
  bool paeth = true;    // false at level 0: stored data gains nothing from filtering

  std::size_t png_row_bytes() const { return row_bytes + 1; }
};

struct FreeDeleter {
  void operator()(std::uint8_t* p) const noexcept { std::free(p); }
};

// One band of rows and what deflating it produced.
struct Band {
  int first_row = 0;
  int end_row = 0;
  std::unique_ptr<std::uint8_t, FreeDeleter> out;  // zlib header first in band 0
  std::size_t size = 0;                            // bytes used in `out`
  std::size_t capacity = 0;
  uLong adler = 1;  // Adler-32 of the band's filtered bytes (1: of nothing)
  std::string error;
};

// Grows `band.out` to at least `needed` bytes.
bool reserve(Band& band, std::size_t needed) {
  if (needed <= band.capacity) return true;
  const std::size_t capacity = std::max(needed, band.capacity + band.capacity / 2);
  auto* grown = static_cast<std::uint8_t*>(std::realloc(band.out.get(), capacity));
  if (!grown) return false;
  static_cast<void>(band.out.release());
  band.out.reset(grown);
  band.capacity = capacity;
  return true;
}

// Row y in PNG's byte order: the pixels themselves, or a byte-swapped copy in `buffer`.
const std::uint8_t* png_row(const Layout& l, int y, std::vector<std::uint8_t>& buffer) {
  const std::uint8_t* row = l.pixels + static_cast<std::size_t>(y) * l.row_bytes;
  if (!l.swap16) return row;
  for (std::size_t i = 0; i + 1 < l.row_bytes; i += 2) {
    buffer[i] = row[i + 1];
    buffer[i + 1] = row[i];
  }
  return buffer.data();
}

unsigned char paeth_predictor(int a, int b, int c) {
  const int p = a + b - c;
  const int pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
  return static_cast<unsigned char>(pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
}

// Writes the filter byte and the filtered row `cur` to `dst`. `up` is the row above, or null
// for the first row: outside the image the predictor sees zeros, where Paeth reduces to the
// left byte (first row) or the byte above (first pixel).
void filter_row(const std::uint8_t* cur, const std::uint8_t* up, std::uint8_t* dst,
                const Layout& l) {
  const std::size_t n = l.row_bytes;
  const std::size_t bpp = std::min(n, l.bytes_per_pixel);
  *dst++ = l.paeth ? kFilterPaeth : kFilterNone;
  if (!l.paeth) {
    std::memcpy(dst, cur, n);
    return;
  }
  if (!up) {
    std::memcpy(dst, cur, bpp);
    for (std::size_t i = bpp; i < n; ++i) dst[i] = static_cast<unsigned char>(cur[i] - cur[i - bpp]);
    return;
  }
  for (std::size_t i = 0; i < bpp; ++i) dst[i] = static_cast<unsigned char>(cur[i] - up[i]);
  for (std::size_t i = bpp; i < n; ++i) {
    dst[i] = static_cast<unsigned char>(cur[i] - paeth_predictor(cur[i - bpp], up[i], up[i - bpp]));
  }
}

// zlib's two header bytes: deflate with a 32 KiB window, and the level class zlib would write.
void write_zlib_header(std::uint8_t* out, int level) {
  out[0] = 0x78;
  out[1] = level <= 1 ? 0x01 : level <= 5 ? 0x5e : level == 6 ? 0x9c : 0xda;
}

// Feeds `z` until it has taken all its input and, for a flush, written all its output.
bool run_deflate(z_stream& z, Band& band, int flush) {
  for (;;) {
    if (!reserve(band, band.size + 64)) return false;
    const std::size_t room = std::min<std::size_t>(band.capacity - band.size, UINT_MAX);
    z.next_out = band.out.get() + band.size;
    z.avail_out = static_cast<uInt>(room);
    const int status = deflate(&z, flush);
    band.size += room - z.avail_out;
    if (status == Z_STREAM_END) return true;
    if (status != Z_OK && status != Z_BUF_ERROR) return false;
    if (flush == Z_FINISH) continue;
    if (z.avail_in == 0 && z.avail_out != 0) return true;
  }
}

// Filters and deflates the band's rows a batch at a time. Every band but the last ends with a
// sync flush (an empty stored block that leaves the stream byte-aligned and open), so the next
// band's blocks can follow it.
void deflate_band(const Layout& l, int level, bool first, bool last, Band& band) {
  z_stream z{};
  if (deflateInit2(&z, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    band.error = "zlib could not start deflating";
    return;
  }
  const std::size_t stride = l.png_row_bytes();
  const std::size_t raw = static_cast<std::size_t>(band.end_row - band.first_row) * stride;
  // The bound covers one pass; the sync flush and the Adler-32 trailer add a few bytes.
  if (!reserve(band, (first ? 2 : 0) + deflateBound(&z, static_cast<uLong>(raw)) + 64)) {
    deflateEnd(&z);
    band.error = "out of memory";
    return;
  }
  if (first) {
    write_zlib_header(band.out.get(), level);
    band.size = 2;
  }
  const std::size_t rows_per_batch = std::max<std::size_t>(1, kBatchBytes / stride);
  std::vector<std::uint8_t> batch(rows_per_batch * stride);
  std::vector<std::uint8_t> above(l.swap16 ? l.row_bytes : 0), current(above.size());
  const std::uint8_t* up = band.first_row > 0 ? png_row(l, band.first_row - 1, above) : nullptr;
  bool ok = true;
  for (int y = band.first_row; ok && y < band.end_row;) {
    std::size_t used = 0;
    for (std::size_t r = 0; r < rows_per_batch && y < band.end_row; ++r, ++y) {
      const std::uint8_t* row = png_row(l, y, current);
      filter_row(row, up, batch.data() + used, l);
      used += stride;
      if (l.swap16) {
        above.swap(current);
        up = above.data();
      } else {
        up = row;
      }
    }
    band.adler = adler32(band.adler, batch.data(), static_cast<uInt>(used));
    z.next_in = batch.data();
    z.avail_in = static_cast<uInt>(used);
    const int flush = y < band.end_row ? Z_NO_FLUSH : last ? Z_FINISH : Z_SYNC_FLUSH;
    ok = run_deflate(z, band, flush);
  }
  deflateEnd(&z);
  if (!ok) band.error = z.msg ? std::string("zlib: ") + z.msg : "zlib failed or ran out of memory";
}

// Splits the rows into bands and deflates them on up to one thread per core.
std::vector<Band> deflate_bands(const Layout& l, int level, int requested_bands) {
  const std::size_t total = l.png_row_bytes() * static_cast<std::size_t>(l.height);
  const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
  std::size_t count = requested_bands > 0
                          ? static_cast<std::size_t>(requested_bands)
                          : std::clamp<std::size_t>(total / kMinBandBytes, 1, cores);
  count = std::max(count, (total + kMaxBandBytes - 1) / kMaxBandBytes);
  count = std::min(count, static_cast<std::size_t>(l.height));
  const std::size_t rows_per_band = (static_cast<std::size_t>(l.height) + count - 1) / count;
  count = (static_cast<std::size_t>(l.height) + rows_per_band - 1) / rows_per_band;

  std::vector<Band> bands(count);
  for (std::size_t b = 0; b < count; ++b) {
    bands[b].first_row = static_cast<int>(b * rows_per_band);
    bands[b].end_row = static_cast<int>(std::min(static_cast<std::size_t>(l.height),
                                                 (b + 1) * rows_per_band));
  }
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t b; (b = next.fetch_add(1)) < count;) {
      try {
        deflate_band(l, level, b == 0, b + 1 == count, bands[b]);
      } catch (const std::exception& e) {  // std::bad_alloc from the row buffers
        bands[b].error = e.what();
      }
    }
  };
  std::vector<std::thread> threads;
  for (std::size_t t = 1; t < std::min(count, cores); ++t) threads.emplace_back(work);
  work();
  for (auto& t : threads) t.join();
  for (const Band& band : bands) {
    if (!band.error.empty()) throw IoError("cannot encode the PNG: " + band.error);
  }
  return bands;
}

// Appends the stream's Adler-32 (of all bands' filtered bytes, in order) to the last band.
void append_adler(std::vector<Band>& bands, const Layout& l) {
  uLong adler = bands.front().adler;
  for (std::size_t b = 1; b < bands.size(); ++b) {
    const auto bytes = static_cast<std::size_t>(bands[b].end_row - bands[b].first_row) *
                       l.png_row_bytes();
    adler = adler32_combine(adler, bands[b].adler, static_cast<z_off_t>(bytes));
  }
  Band& last = bands.back();
  if (!reserve(last, last.size + 4)) throw IoError("cannot encode the PNG: out of memory");
  for (int i = 3; i >= 0; --i) last.out.get()[last.size++] = static_cast<std::uint8_t>(adler >> (8 * i));
}

struct WriteState {
  std::vector<std::uint8_t>* out;
  char error[256];
};

void append(png_structp png, png_bytep data, png_size_t size) {
  auto* state = static_cast<WriteState*>(png_get_io_ptr(png));
  state->out->insert(state->out->end(), data, data + size);
}

void on_error(png_structp png, png_const_charp message) {
  auto* state = static_cast<WriteState*>(png_get_error_ptr(png));
  std::snprintf(state->error, sizeof state->error, "%s", message);
  png_longjmp(png, 1);
}

void on_warning(png_structp, png_const_charp) {}

int color_type(int channels) {
  switch (channels) {
    case 1:
      return PNG_COLOR_TYPE_GRAY;
    case 2:
      return PNG_COLOR_TYPE_GRAY_ALPHA;
    case 3:
      return PNG_COLOR_TYPE_RGB;
    default:
      return PNG_COLOR_TYPE_RGBA;
  }
}

// Signature and IHDR from libpng's own writer, then one IDAT per band, then IEND. Returns
// false (with state.error set) on a libpng error.
bool write_chunks(int width, int height, int bits, int channels, const std::vector<Band>& bands,
                  WriteState& state) {
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &state, on_error, on_warning);
  if (!png) return false;
  png_infop info = png_create_info_struct(png);
  if (!info || setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return false;
  }
  png_set_write_fn(png, &state, append, nullptr);
  png_set_IHDR(png, info, static_cast<png_uint_32>(width), static_cast<png_uint_32>(height), bits,
               color_type(channels), PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  static const png_byte kIdat[5] = "IDAT";
  static const png_byte kIend[5] = "IEND";
  for (const Band& band : bands) png_write_chunk(png, kIdat, band.out.get(), band.size);
  png_write_chunk(png, kIend, nullptr, 0);
  png_destroy_write_struct(&png, &info);
  return true;
}

template <typename Sample>
std::vector<std::uint8_t> encode(const Raster<Sample>& image, const PngEncoding& encoding) {
  check_shape(image.width, image.height, image.channels);
  const int level = std::clamp(encoding.level, kMinPngLevel, kMaxPngLevel);
  Layout l;
  l.pixels = reinterpret_cast<const std::uint8_t*>(image.pixels.data());
  l.row_bytes = image.row_bytes();
  l.bytes_per_pixel = sizeof(Sample) * static_cast<std::size_t>(image.channels);
  l.height = image.height;
  l.swap16 = sizeof(Sample) == 2;
  l.paeth = level > 0;
  std::vector<Band> bands = deflate_bands(l, level, encoding.bands);
  append_adler(bands, l);

  std::size_t total = 64;  // signature, IHDR, IEND
  for (const Band& band : bands) total += band.size + 12;
  std::vector<std::uint8_t> out;
  out.reserve(total);
  WriteState state{&out, {}};
  if (!write_chunks(image.width, image.height, static_cast<int>(8 * sizeof(Sample)),
                    image.channels, bands, state)) {
    throw IoError(std::string("cannot encode the PNG: ") +
                  (state.error[0] ? state.error : "libpng failed"));
  }
  return out;
}

}  // namespace

std::vector<std::uint8_t> encode_png(const Image& image, const PngEncoding& encoding) {
  return encode(image, encoding);
}

std::vector<std::uint8_t> encode_png(const Image16& image, const PngEncoding& encoding) {
  return encode(image, encoding);
}

}  // namespace gpublur
