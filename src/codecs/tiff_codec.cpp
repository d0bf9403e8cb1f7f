// tiff_codec.cpp — libtiff on memory (tiff_handle.hpp): the first page decoded, strips encoded.
#include "codecs/tiff_codec.hpp"

#include <libdeflate.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
#include <tiffio.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>

#include "base/errors.hpp"
#include "base/large_buffer.hpp"
#include "codecs/exif_tiff.hpp"
#include "codecs/tiff_handle.hpp"

namespace gpublur {
namespace {

using tiff::allocation_bound;
using tiff::block_bytes;
using tiff::decoded_size;
using tiff::direct;
using tiff::Handle;
using tiff::jpeg_ycbcr;
using tiff::Layout;
using tiff::layout_of;
using tiff::MemoryFile;
using tiff::metadata_of;

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

}  // namespace

DecodedImage decode_tiff(const std::uint8_t* data, std::size_t size, const DecodeLimits& limits) {
  MemoryFile file;
  file.data = data, file.size = size;
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
  MemoryFile file;
  file.out = &out;
  Handle h(file, "w", std::numeric_limits<tmsize_t>::max());
  TIFF* tif = h.get();
  if (!tif) h.fail("cannot encode TIFF");
  const std::uint32_t rows_per_strip = tiff::set_tags(tif, image, metadata, deflate);
  if (deflate) {  // strips predicted and Deflated here
    const std::vector<std::vector<std::uint8_t>> strips = compressed_strips(image, rows_per_strip);
    for (std::size_t s = 0; s < strips.size(); ++s) {
      if (TIFFWriteRawStrip(tif, static_cast<std::uint32_t>(s),
                            const_cast<std::uint8_t*>(strips[s].data()),
                            static_cast<tmsize_t>(strips[s].size())) < 0)
        h.fail("cannot encode TIFF");
    }
  } else {  // the raster's rows are the strips' bytes: no copy but libtiff's into the file
    tiff::write_raw_strips(h, image, rows_per_strip);
  }
  if (!h.close()) h.fail("cannot encode TIFF");
  out.resize(file.size);
  if (!metadata.exif.empty()) add_exif_to_tiff(out, metadata.exif);
  return out;
}

template std::vector<std::uint8_t> encode_tiff(const Image&, const Metadata&, TiffCompression);
template std::vector<std::uint8_t> encode_tiff(const Image16&, const Metadata&, TiffCompression);

template <typename Sample>
std::optional<TiffFrame> tiff_frame(const Raster<Sample>& image, const Metadata& metadata) {
  // encode_tiff's libtiff calls, uncompressed, into a recording: the strips (the raster's rows,
  // in order) borrowed, the rest (header, directory, tag values) owned.
  tiff::Recording r;
  r.lent = reinterpret_cast<const std::uint8_t*>(image.pixels.data());
  r.lent_size = image.pixels.size() * sizeof(Sample);
  MemoryFile file;
  file.recording = &r;
  try {
    Handle h(file, "w", std::numeric_limits<tmsize_t>::max());
    if (!h.get()) return std::nullopt;
    tiff::write_raw_strips(h, image, tiff::set_tags(h.get(), image, metadata, false));
    if (!h.close()) return std::nullopt;
  } catch (const IoError&) {  // (past 4 GiB): the encoder says so in its words
    return std::nullopt;
  }
  const std::uint64_t run_end = r.run_at + r.run_size;
  if (r.broken || r.run_size != r.lent_size || r.run_at != r.head.size() || file.size < run_end ||
      run_end > 0xffffffffu) {
    return std::nullopt;
  }
  r.tail.resize(static_cast<std::size_t>(file.size - run_end));  // as encode_tiff's resize
  TiffFrame frame{std::move(r.head), std::move(r.tail)};
  if (!metadata.exif.empty() &&
      !add_exif_to_tiff_tail(frame.head, frame.tail, static_cast<std::uint32_t>(run_end),
                             metadata.exif)) {
    return std::nullopt;
  }
  return frame;
}

template std::optional<TiffFrame> tiff_frame(const Image&, const Metadata&);
template std::optional<TiffFrame> tiff_frame(const Image16&, const Metadata&);

}  // namespace gpublur
