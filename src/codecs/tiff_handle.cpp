// tiff_handle.cpp — libtiff's client procedures over memory, a reader and a recording; the first
// directory's facts; the encoder's tags and uncompressed strips.
#include "codecs/tiff_handle.hpp"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <limits>

#include "base/errors.hpp"

namespace gpublur::tiff {
namespace {

MemoryFile& file_of(thandle_t h) { return *static_cast<MemoryFile*>(h); }

tmsize_t read_proc(thandle_t h, void* buffer, tmsize_t n) {
  MemoryFile& f = file_of(h);
  if ((!f.data && !f.read) || n < 0 || f.pos >= f.size) return 0;
  const auto count = std::min<std::uint64_t>(static_cast<std::uint64_t>(n), f.size - f.pos);
  if (f.read) {
    if (!(*f.read)(f.pos, static_cast<std::size_t>(count), static_cast<std::uint8_t*>(buffer)))
      return -1;
  } else {
    std::memcpy(buffer, f.data + f.pos, count);
  }
  f.pos += count;
  return static_cast<tmsize_t>(count);
}

// Writes `n` bytes at `at` into `v`, which holds a file's bytes from `base` on: zeros fill a gap
// left by a seek past the end, as a file's hole reads.
void put(std::vector<std::uint8_t>& v, std::uint64_t base, std::uint64_t at,
         const std::uint8_t* bytes, std::size_t n) {
  const auto from = static_cast<std::size_t>(at - base);
  if (from == v.size()) {  // appended: copied once, not zeroed first
    v.insert(v.end(), bytes, bytes + n);
    return;
  }
  if (from + n > v.size()) v.resize(from + n);
  std::memcpy(v.data() + from, bytes, n);
}

// A write into a recording (Recording says which fit).
void record(Recording& r, std::uint64_t at, std::uint64_t size, const std::uint8_t* bytes,
            std::size_t n) {
  // Compared as addresses: `bytes` may point anywhere (libtiff's own buffers).
  const auto in_lent =
      reinterpret_cast<std::uintptr_t>(bytes) - reinterpret_cast<std::uintptr_t>(r.lent);
  const bool lent =
      n > 0 &&
      reinterpret_cast<std::uintptr_t>(bytes) >= reinterpret_cast<std::uintptr_t>(r.lent) &&
      in_lent < r.lent_size;
  const std::uint64_t run_end = r.run_at + r.run_size;
  if (lent) {  // the next strip, appended: the raster's bytes from where the last one ended
    const bool first = r.run_size == 0;
    if (at != size || !r.tail.empty() || (first && at != r.head.size()) ||
        (!first && at != run_end) || in_lent != r.run_size || n > r.lent_size - in_lent) {
      r.broken = true;
      return;
    }
    if (first) r.run_at = at;
    r.run_size += n;
  } else if (r.run_size == 0 || at + n <= r.run_at) {  // before the strips; the header's patch
    put(r.head, 0, at, bytes, n);
  } else if (at >= run_end) {
    put(r.tail, run_end, at, bytes, n);
  } else {
    r.broken = true;
  }
}

tmsize_t write_proc(thandle_t h, void* buffer, tmsize_t n) {
  MemoryFile& f = file_of(h);
  if ((!f.out && !f.recording) || n < 0) return -1;
  const std::uint64_t end = f.pos + static_cast<std::uint64_t>(n);
  const auto* bytes = static_cast<const std::uint8_t*>(buffer);
  if (f.recording) {
    record(*f.recording, f.pos, f.size, bytes, static_cast<std::size_t>(n));
  } else {
    put(*f.out, 0, f.pos, bytes, static_cast<std::size_t>(n));
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

int on_error(TIFF*, void* user, const char*, const char* format, va_list args) {
  auto* error = static_cast<std::string*>(user);
  if (error->empty()) {
    char text[512];
    std::vsnprintf(text, sizeof text, format, args);
    *error = text;
  }
  return 1;  // handled: libtiff's global handler does not print it
}
int on_warning(TIFF*, void*, const char*, const char*, va_list) { return 1; }

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

}  // namespace

Handle::Handle(MemoryFile& file, const char* mode, tmsize_t max_alloc) {
  TIFFOpenOptions* options = TIFFOpenOptionsAlloc();
  TIFFOpenOptionsSetErrorHandlerExtR(options, on_error, &error_);
  TIFFOpenOptionsSetWarningHandlerExtR(options, on_warning, nullptr);
  TIFFOpenOptionsSetMaxSingleMemAlloc(options, max_alloc);
  tif_ = TIFFClientOpenExt("memory", mode, &file, read_proc, write_proc, seek_proc, close_proc,
                           size_proc, map_proc, unmap_proc, options);
  TIFFOpenOptionsFree(options);
}

Handle::~Handle() {
  if (tif_) TIFFClose(tif_);
}

bool Handle::close() {
  if (tif_) TIFFClose(tif_);
  tif_ = nullptr;
  return error_.empty();
}

void Handle::fail(const std::string& what) const {
  throw IoError(what + (error_.empty() ? "" : ": " + error_));
}

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

bool jpeg_ycbcr(const Layout& l) {
  return l.photometric == PHOTOMETRIC_YCBCR && l.compression == COMPRESSION_JPEG && l.spp == 3;
}

bool direct(const Layout& l) {
  const bool gray =
      l.photometric == PHOTOMETRIC_MINISBLACK || l.photometric == PHOTOMETRIC_MINISWHITE;
  const bool rgb = l.photometric == PHOTOMETRIC_RGB || jpeg_ycbcr(l);
  return (l.bps == 8 || l.bps == 16) && l.format == SAMPLEFORMAT_UINT &&
         ((gray && (l.spp == 1 || l.spp == 2)) || (rgb && (l.spp == 3 || l.spp == 4)));
}

DecodedSize decoded_size(const Layout& l) {
  if (direct(l)) return {l.width, l.height, l.spp, l.bps / 8};
  return {l.width, l.height, 4, 1};
}

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

// Twice its decoded samples (a strip or tile is at most the image; compression can add a little),
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

template <typename Sample>
std::uint32_t set_tags(TIFF* tif, const Raster<Sample>& image, const Metadata& metadata,
                       bool deflate) {
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
  // Strips predicted and Deflated by the encoder, or the raster's own rows, written as they are.
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
  return rows_per_strip;
}

template <typename Sample>
void write_raw_strips(Handle& h, const Raster<Sample>& image, std::uint32_t rows_per_strip) {
  const std::size_t row_bytes = image.row_samples() * sizeof(Sample);
  const auto height = static_cast<std::size_t>(image.height);
  for (std::size_t first = 0, s = 0; first < height; first += rows_per_strip, ++s) {
    const std::size_t rows = std::min<std::size_t>(rows_per_strip, height - first);
    auto* bytes = reinterpret_cast<std::uint8_t*>(
        const_cast<Sample*>(image.pixels.data() + first * image.row_samples()));
    if (TIFFWriteRawStrip(h.get(), static_cast<std::uint32_t>(s), bytes,
                          static_cast<tmsize_t>(rows * row_bytes)) < 0)
      h.fail("cannot encode TIFF");
  }
}

template std::uint32_t set_tags(TIFF*, const Image&, const Metadata&, bool);
template std::uint32_t set_tags(TIFF*, const Image16&, const Metadata&, bool);
template void write_raw_strips(Handle&, const Image&, std::uint32_t);
template void write_raw_strips(Handle&, const Image16&, std::uint32_t);

}  // namespace gpublur::tiff
