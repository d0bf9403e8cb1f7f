// tiff_codec.cpp — libtiff on memory: a client-opened handle whose errors are kept per handle
// (libtiff's global handlers would print to stderr and race between threads).
#include "codecs/tiff_codec.hpp"

#include <libdeflate.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
#include <tiffio.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <string>

#include "base/errors.hpp"
#include "base/large_buffer.hpp"
#include "codecs/exif_tiff.hpp"

namespace gpublur {
namespace {

// libdeflate's level for the image data TIFF outputs hold: level 1, as PNG's default
// (encode_options.hpp); libtiff's default, 6, took several times as long for a somewhat smaller
// file (bench/RESULTS.md).
constexpr int kTiffDeflateLevel = 1;

struct CompressorDeleter {
  void operator()(libdeflate_compressor* c) const noexcept { libdeflate_free_compressor(c); }
};

// Rows as TIFF's horizontal predictor stores them, in place: each sample less the sample a pixel
// before it in its row (modulo its bits), each row's first pixel as it is.
template <typename Sample>
void predict(Sample* rows, std::size_t row_samples, std::size_t count, std::size_t channels) {
  for (std::size_t y = 0; y < count; ++y) {
    Sample* row = rows + y * row_samples;
    for (std::size_t i = row_samples; i-- > channels;)
      row[i] = static_cast<Sample>(row[i] - row[i - channels]);
  }
}

// The image's strips of `rows_per_strip` rows, each predicted and Deflated into a zlib stream (as
// TIFF's Adobe Deflate holds it), strips on several threads at once: on one, an 8K image's
// Deflate took most of a second. Isolated, so that a batch's thread waiting here takes up no
// other image's work.
template <typename Sample>
std::vector<std::vector<std::uint8_t>> compressed_strips(const Raster<Sample>& image,
                                                         std::uint32_t rows_per_strip) {
  const std::size_t row_samples = image.row_samples();
  const auto height = static_cast<std::size_t>(image.height);
  const std::size_t strips = (height + rows_per_strip - 1) / rows_per_strip;
  std::vector<std::vector<std::uint8_t>> out(strips);
  std::atomic<bool> failed{false};
  tbb::this_task_arena::isolate([&] {
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, strips),
                      [&](const tbb::blocked_range<std::size_t>& range) {
      const std::unique_ptr<libdeflate_compressor, CompressorDeleter> compressor(
          libdeflate_alloc_compressor(kTiffDeflateLevel));
      if (!compressor) {
        failed = true;
        return;
      }
      std::vector<Sample> rows(row_samples * rows_per_strip);
      for (std::size_t s = range.begin(); s != range.end(); ++s) {
        const std::size_t first = s * rows_per_strip;
        const std::size_t count = std::min<std::size_t>(rows_per_strip, height - first);
        std::copy_n(image.pixels.data() + first * row_samples, count * row_samples, rows.data());
        predict(rows.data(), row_samples, count, static_cast<std::size_t>(image.channels));
        const std::size_t bytes = count * row_samples * sizeof(Sample);
        std::vector<std::uint8_t>& strip = out[s];
        strip.resize(libdeflate_zlib_compress_bound(compressor.get(), bytes));
        const std::size_t size = libdeflate_zlib_compress(compressor.get(), rows.data(), bytes,
                                                          strip.data(), strip.size());
        if (size == 0) failed = true;
        strip.resize(size);
      }
    });
  });
  if (failed) throw IoError("cannot encode TIFF: libdeflate failed");
  return out;
}

// The file libtiff reads from (data) or writes into (out).
struct MemoryFile {
  const std::uint8_t* data = nullptr;
  std::vector<std::uint8_t>* out = nullptr;
  std::uint64_t size = 0;
  std::uint64_t pos = 0;
};

MemoryFile& file_of(thandle_t h) { return *static_cast<MemoryFile*>(h); }

tmsize_t read_proc(thandle_t h, void* buffer, tmsize_t n) {
  MemoryFile& f = file_of(h);
  if (!f.data || n < 0 || f.pos >= f.size) return 0;
  const auto count = std::min<std::uint64_t>(static_cast<std::uint64_t>(n), f.size - f.pos);
  std::memcpy(buffer, f.data + f.pos, count);
  f.pos += count;
  return static_cast<tmsize_t>(count);
}

tmsize_t write_proc(thandle_t h, void* buffer, tmsize_t n) {
  MemoryFile& f = file_of(h);
  if (!f.out || n < 0) return -1;
  const std::uint64_t end = f.pos + static_cast<std::uint64_t>(n);
  const auto* bytes = static_cast<const std::uint8_t*>(buffer);
  if (f.pos == f.out->size()) {  // appended (the strips): copied once, not zeroed first
    f.out->insert(f.out->end(), bytes, bytes + n);
  } else {
    if (end > f.out->size()) f.out->resize(end);
    std::memcpy(f.out->data() + f.pos, bytes, static_cast<std::size_t>(n));
  }
  f.pos = end;
  f.size = std::max(f.size, end);
  return n;
}

toff_t seek_proc(thandle_t h, toff_t offset, int whence) {
  MemoryFile& f = file_of(h);
  const std::uint64_t base = whence == SEEK_CUR ? f.pos : whence == SEEK_END ? f.size : 0;
  f.pos = base + offset;
  return f.pos;
}

int close_proc(thandle_t) { return 0; }
toff_t size_proc(thandle_t h) { return file_of(h).size; }
int map_proc(thandle_t, void**, toff_t*) { return 0; }
void unmap_proc(thandle_t, void*, toff_t) {}

// The first error libtiff reports on a handle; warnings are dropped (libtiff decodes through them).
struct Messages {
  std::string error;
};

int on_error(TIFF*, void* user, const char*, const char* format, va_list args) {
  auto* messages = static_cast<Messages*>(user);
  if (messages->error.empty()) {
    char text[512];
    std::vsnprintf(text, sizeof text, format, args);
    messages->error = text;
  }
  return 1;  // handled: libtiff's global handler does not print it
}
int on_warning(TIFF*, void*, const char*, const char*, va_list) { return 1; }

class Handle {
 public:
  Handle(MemoryFile& file, const char* mode, tmsize_t max_alloc) {
    TIFFOpenOptions* options = TIFFOpenOptionsAlloc();
    TIFFOpenOptionsSetErrorHandlerExtR(options, on_error, &messages_);
    TIFFOpenOptionsSetWarningHandlerExtR(options, on_warning, nullptr);
    TIFFOpenOptionsSetMaxSingleMemAlloc(options, max_alloc);
    tif_ = TIFFClientOpenExt("memory", mode, &file, read_proc, write_proc, seek_proc, close_proc,
                             size_proc, map_proc, unmap_proc, options);
    TIFFOpenOptionsFree(options);
  }
  ~Handle() {
    if (tif_) TIFFClose(tif_);
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  TIFF* get() const { return tif_; }
  /// Closes (and so, writing, finishes) the file; true unless libtiff reported an error.
  bool close() {
    if (tif_) TIFFClose(tif_);
    tif_ = nullptr;
    return messages_.error.empty();
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw IoError(what + (messages_.error.empty() ? "" : ": " + messages_.error));
  }

 private:
  Messages messages_;
  TIFF* tif_ = nullptr;
};

struct Layout {
  std::uint32_t width = 0, height = 0;
  std::uint16_t spp = 1, bps = 1, photometric = PHOTOMETRIC_MINISBLACK;
  std::uint16_t planar = PLANARCONFIG_CONTIG, format = SAMPLEFORMAT_UINT;
  std::uint16_t compression = COMPRESSION_NONE;
  bool associated_alpha = false;
};

Layout layout_of(TIFF* tif) {
  Layout l;
  TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &l.width);
  TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &l.height);
  TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &l.spp);
  TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &l.bps);
  TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &l.planar);
  TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &l.format);
  TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &l.compression);
  if (!TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &l.photometric)) {
    l.photometric = l.spp >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK;
  }
  std::uint16_t extra_count = 0;
  std::uint16_t* extra = nullptr;
  if (TIFFGetField(tif, TIFFTAG_EXTRASAMPLES, &extra_count, &extra) && extra_count > 0 && extra) {
    l.associated_alpha = extra[0] == EXTRASAMPLE_ASSOCALPHA;
  }
  return l;
}

// YCbCr in JPEG strips or tiles, which libjpeg converts to RGB when asked (JPEGCOLORMODE).
bool jpeg_ycbcr(const Layout& l) {
  return l.photometric == PHOTOMETRIC_YCBCR && l.compression == COMPRESSION_JPEG && l.spp == 3;
}

// Whether the samples can be copied as they are: 8 or 16 bits, unsigned, gray(+alpha) or RGB(A).
bool direct(const Layout& l) {
  const bool gray =
      l.photometric == PHOTOMETRIC_MINISBLACK || l.photometric == PHOTOMETRIC_MINISWHITE;
  const bool rgb = l.photometric == PHOTOMETRIC_RGB || jpeg_ycbcr(l);
  return (l.bps == 8 || l.bps == 16) && l.format == SAMPLEFORMAT_UINT &&
         ((gray && (l.spp == 1 || l.spp == 2)) || (rgb && (l.spp == 3 || l.spp == 4)));
}

// What --max-bytes counts: the samples as they are, or the 8-bit RGBA libtiff renders the rest to.
DecodedSize decoded_size(const Layout& l) {
  if (direct(l)) return {l.width, l.height, l.spp, l.bps / 8};
  return {l.width, l.height, 4, 1};
}

// Copies a block (a strip, or a tile) of `block_w` x `rows` samples of one plane (`plane`; -1:
// all channels interleaved) into the image at (x0, y0), clipped to the image.
template <typename Sample>
void copy_block(const std::uint8_t* block, std::uint32_t block_w, std::uint32_t rows,
                std::uint32_t x0, std::uint32_t y0, int plane, Raster<Sample>& image) {
  const auto channels = static_cast<std::size_t>(image.channels);
  const std::size_t per_pixel = plane < 0 ? channels : 1;
  const auto* samples = reinterpret_cast<const Sample*>(block);
  const std::uint32_t w =
      std::min<std::uint32_t>(block_w, static_cast<std::uint32_t>(image.width) - x0);
  const std::uint32_t h =
      std::min<std::uint32_t>(rows, static_cast<std::uint32_t>(image.height) - y0);
  for (std::uint32_t r = 0; r < h; ++r) {
    const Sample* src = samples + std::size_t{r} * block_w * per_pixel;
    Sample* dst = image.pixels.data() + (std::size_t{y0} + r) * image.row_samples() +
                  std::size_t{x0} * channels;
    if (plane < 0) {
      std::memcpy(dst, src, std::size_t{w} * channels * sizeof(Sample));
    } else {
      for (std::uint32_t x = 0; x < w; ++x)
        dst[x * channels + static_cast<std::size_t>(plane)] = src[x];
    }
  }
}

// The largest tile or strip an image can need, per side: the image's own, or 1024 pixels (writers
// such as GDAL put 256-pixel tiles on images smaller than that).
constexpr std::uint32_t kMinBlockSide = 1024;

// Refuses a tile or strip buffer, before it is allocated or decoded, that is larger than the image
// can need: wider or taller than the image and kMinBlockSide, or of more bytes than such a block
// of the image's samples (libtiff's TIFFTileSize trusts the tags: a 1 KB file can ask for 12 GB).
void check_block(const Layout& l, std::uint32_t w, std::uint32_t h, std::uint64_t bytes,
                 const char* what) {
  const std::uint64_t max_w = std::max(l.width, kMinBlockSide);
  const std::uint64_t max_h = std::max(l.height, kMinBlockSide);
  const std::uint64_t pixel_bytes =
      std::uint64_t{l.spp} * ((std::min<std::uint64_t>(l.bps, 64) + 7) / 8);
  if (w > max_w || h > max_h || bytes > max_w * max_h * std::max<std::uint64_t>(pixel_bytes, 4)) {
    throw IoError("damaged TIFF: " + std::string(what) + " of " + std::to_string(w) + "x" +
                  std::to_string(h) + " pixels (" + std::to_string(bytes) +
                  " bytes) for an image of " + std::to_string(l.width) + "x" +
                  std::to_string(l.height));
  }
}

// The tile or strip size of the file, checked by check_block.
std::size_t block_bytes(Handle& h, const Layout& l) {
  TIFF* tif = h.get();
  if (TIFFIsTiled(tif)) {
    std::uint32_t tw = 0, th = 0;
    TIFFGetField(tif, TIFFTAG_TILEWIDTH, &tw);
    TIFFGetField(tif, TIFFTAG_TILELENGTH, &th);
    const std::uint64_t bytes = TIFFTileSize64(tif);
    if (bytes == 0 || tw == 0 || th == 0) h.fail("damaged TIFF tiles");
    check_block(l, tw, th, bytes, "tiles");
    return static_cast<std::size_t>(bytes);
  }
  std::uint32_t rows_per_strip = l.height;
  TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &rows_per_strip);
  const std::uint64_t bytes = TIFFStripSize64(tif);
  if (bytes == 0) h.fail("damaged TIFF strips");
  check_block(l, l.width, std::min(rows_per_strip, l.height), bytes, "strips");
  return static_cast<std::size_t>(bytes);
}

template <typename Sample>
void read_samples(Handle& h, const Layout& l, Raster<Sample>& image) {
  TIFF* tif = h.get();
  const bool separate = l.planar == PLANARCONFIG_SEPARATE;
  const int planes = separate ? l.spp : 1;
  if (TIFFIsTiled(tif)) {
    std::uint32_t tw = 0, th = 0;
    TIFFGetField(tif, TIFFTAG_TILEWIDTH, &tw);
    TIFFGetField(tif, TIFFTAG_TILELENGTH, &th);
    std::vector<std::uint8_t> tile(block_bytes(h, l));
    for (int p = 0; p < planes; ++p) {
      for (std::uint32_t y = 0; y < l.height; y += th) {
        for (std::uint32_t x = 0; x < l.width; x += tw) {
          if (TIFFReadTile(tif, tile.data(), x, y, 0, static_cast<std::uint16_t>(p)) < 0) {
            h.fail("damaged TIFF tile");
          }
          copy_block(tile.data(), tw, th, x, y, separate ? p : -1, image);
        }
      }
    }
    return;
  }
  std::uint32_t rows_per_strip = l.height;
  TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &rows_per_strip);
  rows_per_strip = std::max<std::uint32_t>(1, std::min(rows_per_strip, l.height));
  const std::size_t strip_bytes = block_bytes(h, l);
  if (!separate) {
    // Interleaved strips are the image's own rows: each is decoded straight into its place, and
    // an uncompressed one is read there in one copy (libtiff takes that path where the buffer is
    // given with its size), not through libtiff's strip buffer and ours (two more copies of an
    // image, most of an 8K TIFF's decode).
    const std::size_t row_bytes = image.row_bytes();
    for (std::uint32_t y = 0; y < l.height; y += rows_per_strip) {
      const std::uint32_t rows = std::min(rows_per_strip, l.height - y);
      const std::uint32_t index = TIFFComputeStrip(tif, y, 0);
      auto* place = reinterpret_cast<std::uint8_t*>(image.pixels.data() +
                                                    std::size_t{y} * image.row_samples());
      const auto bytes = static_cast<tmsize_t>(std::size_t{rows} * row_bytes);
      if (TIFFReadEncodedStrip(tif, index, place, bytes) < 0) h.fail("damaged TIFF strip");
    }
    return;
  }
  std::vector<std::uint8_t> strip(strip_bytes);
  for (int p = 0; p < planes; ++p) {
    for (std::uint32_t y = 0; y < l.height; y += rows_per_strip) {
      const std::uint32_t index = TIFFComputeStrip(tif, y, static_cast<std::uint16_t>(p));
      if (TIFFReadEncodedStrip(tif, index, strip.data(), -1) < 0) h.fail("damaged TIFF strip");
      copy_block(strip.data(), l.width, rows_per_strip, 0, y, p, image);  // a plane's samples
    }
  }
}

// Gray with 0 as white, inverted; colours premultiplied by alpha (associated), divided back.
template <typename Sample>
void normalise(const Layout& l, Raster<Sample>& image) {
  constexpr unsigned kMax = std::numeric_limits<Sample>::max();
  const auto c = static_cast<std::size_t>(image.channels);
  const bool alpha = c == 2 || c == 4;
  if (l.photometric == PHOTOMETRIC_MINISWHITE) {
    for (std::size_t i = 0; i < image.pixels.size(); i += c) {
      image.pixels[i] = static_cast<Sample>(kMax - image.pixels[i]);
    }
  }
  if (!alpha || !l.associated_alpha) return;
  for (std::size_t i = 0; i < image.pixels.size(); i += c) {
    const unsigned a = image.pixels[i + c - 1];
    for (std::size_t k = 0; k + 1 < c; ++k) {
      const unsigned v = image.pixels[i + k];
      image.pixels[i + k] =
          static_cast<Sample>(a == 0 ? 0 : std::min(kMax, (v * kMax + a / 2) / a));
    }
  }
}

// Everything else libtiff renders, as 8-bit RGBA, then narrowed to what the file holds.
Image read_rendered(Handle& h, const Layout& l) {
  char reason[1024] = {};
  if (!TIFFRGBAImageOK(h.get(), reason)) h.fail(std::string("unsupported TIFF: ") + reason);
  block_bytes(h, l);  // libtiff reads the file a tile or strip at a time
  std::vector<std::uint32_t> rgba(static_cast<std::size_t>(l.width) * l.height);
  // In the file's own orientation, as the direct path reads: the pixels stay as stored and the
  // Orientation tag, kept with the EXIF tags, still says how to show them.
  std::uint16_t orientation = ORIENTATION_TOPLEFT;
  TIFFGetFieldDefaulted(h.get(), TIFFTAG_ORIENTATION, &orientation);
  if (!TIFFReadRGBAImageOriented(h.get(), l.width, l.height, rgba.data(), orientation, 0)) {
    h.fail("damaged TIFF");
  }
  const bool gray =
      l.photometric == PHOTOMETRIC_MINISBLACK || l.photometric == PHOTOMETRIC_MINISWHITE;
  const bool alpha = l.spp == (gray ? 2 : 4);
  Image image = make_image(static_cast<int>(l.width), static_cast<int>(l.height),
                           (gray ? 1 : 3) + (alpha ? 1 : 0));
  const auto c = static_cast<std::size_t>(image.channels);
  for (std::size_t i = 0; i < rgba.size(); ++i) {
    const std::uint32_t v = rgba[i];
    std::uint8_t* px = &image.pixels[i * c];
    if (gray) {
      px[0] = static_cast<std::uint8_t>(TIFFGetR(v));
    } else {
      px[0] = static_cast<std::uint8_t>(TIFFGetR(v));
      px[1] = static_cast<std::uint8_t>(TIFFGetG(v));
      px[2] = static_cast<std::uint8_t>(TIFFGetB(v));
    }
    if (alpha) px[c - 1] = static_cast<std::uint8_t>(TIFFGetA(v));
  }
  return image;
}

Metadata metadata_of(TIFF* tif) {
  Metadata m;
  std::uint32_t icc_size = 0;
  void* icc = nullptr;
  if (TIFFGetField(tif, TIFFTAG_ICCPROFILE, &icc_size, &icc) && icc && icc_size > 0) {
    const auto* bytes = static_cast<const std::uint8_t*>(icc);
    m.icc.assign(bytes, bytes + icc_size);
  }
  std::uint32_t xmp_size = 0;
  void* xmp = nullptr;
  if (TIFFGetField(tif, TIFFTAG_XMLPACKET, &xmp_size, &xmp) && xmp && xmp_size > 0) {
    const auto* bytes = static_cast<const std::uint8_t*>(xmp);
    m.xmp.assign(bytes, bytes + xmp_size);
  }
  float x = 0, y = 0;
  std::uint16_t unit = RESUNIT_INCH;
  if (TIFFGetField(tif, TIFFTAG_XRESOLUTION, &x) && TIFFGetField(tif, TIFFTAG_YRESOLUTION, &y) &&
      std::isfinite(x) && std::isfinite(y) && x > 0 && y > 0) {
    TIFFGetFieldDefaulted(tif, TIFFTAG_RESOLUTIONUNIT, &unit);
    m.density = Density{x, y,
                        unit == RESUNIT_CENTIMETER ? Density::Unit::kCentimetre
                        : unit == RESUNIT_INCH     ? Density::Unit::kInch
                                                   : Density::Unit::kNone};
  }
  return m;
}

// The largest single buffer a file of `file_size` bytes whose layout is `l` can need from libtiff:
// twice its decoded samples (a strip or tile is at most the image; compression can add a little),
// or twice the file (tag arrays, compressed strips), and never less than 64 MiB. Without a bound,
// a few hundred bytes can make libtiff allocate gigabytes for one strip (found by fuzz_tiff).
tmsize_t allocation_bound(std::uint64_t file_size, const Layout* l) {
  std::uint64_t bound = std::max<std::uint64_t>(std::uint64_t{64} << 20, 2 * file_size);
  if (l) {
    const std::uint64_t sample_bytes = (std::min<std::uint64_t>(l->bps, 64) + 7) / 8;
    const std::uint64_t samples = std::uint64_t{l->width} * l->height *
                                  std::min<std::uint64_t>(std::max<std::uint16_t>(l->spp, 4), 16);
    bound = std::max(bound, 2 * samples * std::max<std::uint64_t>(sample_bytes, 1));
  }
  return static_cast<tmsize_t>(
      std::min<std::uint64_t>(bound, std::numeric_limits<tmsize_t>::max()));
}

}  // namespace

DecodedImage decode_tiff(const std::uint8_t* data, std::size_t size, const DecodeLimits& limits) {
  MemoryFile file{data, nullptr, size, 0};
  Layout l;
  {  // The directory first, under a bound from the file's size alone.
    Handle probe(file, "rm", allocation_bound(size, nullptr));
    if (!probe.get()) probe.fail("damaged TIFF");
    l = layout_of(probe.get());
    check_image_size(decoded_size(l), limits);
  }
  file.pos = 0;
  // Then the pixels, under a bound from the checked size.
  Handle h(file, "rm", allocation_bound(size, &l));
  if (!h.get()) h.fail("damaged TIFF");
  DecodedImage result;
  result.format = ImageFormat::kTiff;
  if (jpeg_ycbcr(l)) {
    TIFFSetField(h.get(), TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB);  // libjpeg converts to RGB
    l.photometric = PHOTOMETRIC_RGB;
  }
  if (direct(l)) {
    const int w = static_cast<int>(l.width), height = static_cast<int>(l.height), c = l.spp;
    if (l.bps == 16) {
      Image16 image = make_raster<std::uint16_t>(w, height, c);
      read_samples(h, l, image);
      normalise(l, image);
      result.image = std::move(image);
    } else {
      Image image = make_image(w, height, c);
      read_samples(h, l, image);
      normalise(l, image);
      result.image = std::move(image);
    }
  } else {
    result.image = read_rendered(h, l);
  }
  result.metadata = metadata_of(h.get());
  result.metadata.exif = exif_from_tiff(data, size);
  result.tiff_compression =
      l.compression == COMPRESSION_NONE ? TiffCompression::kNone : TiffCompression::kDeflate;
  return result;
}

template <typename Sample>
std::vector<std::uint8_t> encode_tiff(const Raster<Sample>& image, const Metadata& metadata,
                                      TiffCompression compression) {
  const bool deflate = compression != TiffCompression::kNone;
  std::vector<std::uint8_t> out;
  // Stored as they are, the samples and a header are the file: room for them at once (a
  // batch's recycled buffer where one fits, as BMP's and PNM's encoders take), not a vector grown
  // (moved and zeroed) strip by strip, which took most of an 8K image's encode (bench/RESULTS.md).
  // Beside the samples: each strip's offset and length (8 bytes; at most a strip a row), the
  // metadata, EXIF twice (its tags, then the directory merged with them), and the tags.
  if (!deflate) {
    reserve_large(out, image.pixels.size() * sizeof(Sample) +
                           8 * static_cast<std::size_t>(image.height) + metadata.icc.size() +
                           metadata.xmp.size() + 2 * metadata.exif.size() +
                           (std::size_t{1} << 16));
  }
  MemoryFile file{nullptr, &out, 0, 0};
  Handle h(file, "w", std::numeric_limits<tmsize_t>::max());
  TIFF* tif = h.get();
  if (!tif) h.fail("cannot encode TIFF");
  const auto channels = static_cast<std::uint16_t>(image.channels);
  const bool alpha = channels == 2 || channels == 4;
  TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, static_cast<std::uint32_t>(image.width));
  TIFFSetField(tif, TIFFTAG_IMAGELENGTH, static_cast<std::uint32_t>(image.height));
  TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, channels);
  TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, static_cast<std::uint16_t>(8 * sizeof(Sample)));
  TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, channels >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK);
  TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
  TIFFSetField(tif, TIFFTAG_ORIENTATION, ORIENTATION_TOPLEFT);
  if (alpha) {
    const std::uint16_t extra[1] = {EXTRASAMPLE_UNASSALPHA};
    TIFFSetField(tif, TIFFTAG_EXTRASAMPLES, 1, extra);
  }
  // Strips predicted and Deflated here (compressed_strips), or the raster's own rows, written
  // as they are.
  TIFFSetField(tif, TIFFTAG_COMPRESSION, deflate ? COMPRESSION_ADOBE_DEFLATE : COMPRESSION_NONE);
  if (deflate) TIFFSetField(tif, TIFFTAG_PREDICTOR, PREDICTOR_HORIZONTAL);
  const std::uint32_t rows_per_strip = std::max<std::uint32_t>(1, TIFFDefaultStripSize(tif, 0));
  TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, rows_per_strip);
  if (icc_to_write(metadata)) {
    TIFFSetField(tif, TIFFTAG_ICCPROFILE, static_cast<std::uint32_t>(metadata.icc.size()),
                 metadata.icc.data());
  }
  if (!metadata.xmp.empty()) {
    TIFFSetField(tif, TIFFTAG_XMLPACKET, static_cast<std::uint32_t>(metadata.xmp.size()),
                 metadata.xmp.data());
  }
  if (metadata.density && metadata.density->x > 0 && metadata.density->y > 0) {
    TIFFSetField(tif, TIFFTAG_XRESOLUTION, static_cast<float>(metadata.density->x));
    TIFFSetField(tif, TIFFTAG_YRESOLUTION, static_cast<float>(metadata.density->y));
    TIFFSetField(tif, TIFFTAG_RESOLUTIONUNIT,
                 metadata.density->unit == Density::Unit::kCentimetre ? RESUNIT_CENTIMETER
                 : metadata.density->unit == Density::Unit::kInch     ? RESUNIT_INCH
                                                                      : RESUNIT_NONE);
  }
  if (deflate) {
    const std::vector<std::vector<std::uint8_t>> strips = compressed_strips(image, rows_per_strip);
    for (std::size_t s = 0; s < strips.size(); ++s) {
      if (TIFFWriteRawStrip(tif, static_cast<std::uint32_t>(s),
                            const_cast<std::uint8_t*>(strips[s].data()),
                            static_cast<tmsize_t>(strips[s].size())) < 0)
        h.fail("cannot encode TIFF");
    }
  } else {  // the raster's rows are the strips' bytes: no copy but libtiff's into the file
    const std::size_t row_bytes = image.row_samples() * sizeof(Sample);
    const auto height = static_cast<std::size_t>(image.height);
    for (std::size_t first = 0, s = 0; first < height; first += rows_per_strip, ++s) {
      const std::size_t rows = std::min<std::size_t>(rows_per_strip, height - first);
      auto* bytes = reinterpret_cast<std::uint8_t*>(
          const_cast<Sample*>(image.pixels.data() + first * image.row_samples()));
      if (TIFFWriteRawStrip(tif, static_cast<std::uint32_t>(s), bytes,
                            static_cast<tmsize_t>(rows * row_bytes)) < 0)
        h.fail("cannot encode TIFF");
    }
  }
  if (!h.close()) h.fail("cannot encode TIFF");
  out.resize(file.size);
  if (!metadata.exif.empty()) add_exif_to_tiff(out, metadata.exif);
  return out;
}

template std::vector<std::uint8_t> encode_tiff(const Image&, const Metadata&, TiffCompression);
template std::vector<std::uint8_t> encode_tiff(const Image16&, const Metadata&, TiffCompression);

}  // namespace gpublur
