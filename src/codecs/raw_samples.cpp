// raw_samples.cpp — PNM's binary samples, BMP's uncompressed pixels and TIFF's uncompressed strips
// as rasters hold them: the raw formats so stored, their layouts read from their headers (TIFF's
// directory) and made for their encoders' files.
#include "codecs/raw_samples.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cstring>
#include <utility>

#include "base/errors.hpp"
#include "codecs/bmp_header.hpp"
#include "codecs/pnm_codec.hpp"
#include "codecs/tiff_codec.hpp"

namespace gpublur {
namespace {

// PNM's 16-bit samples are big-endian.
constexpr bool kHostLittleEndian = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
// The padding of the rows written (BMP's: at most 3 bytes).
constexpr std::uint8_t kZeros[4] = {};
// The bytes a PNM's or BMP's header is looked for in: every one gpublur writes, and all but PNMs
// padded with long comments (read the ordinary way). A TIFF's directory is read where it lies.
constexpr std::size_t kHeaderBytes = 4096;
// Rows are reordered on several threads in tasks of about this many bytes: an 8K image's 100 MB
// on one thread took longer than writing it.
constexpr std::size_t kTaskBytes = std::size_t{1} << 20;

std::optional<RawLayout> pnm_layout(const std::uint8_t* start, std::size_t size) {
  const std::optional<PnmSamples> pnm = pnm_samples(start, size);
  if (!pnm) return std::nullopt;
  RawLayout layout;
  layout.format = ImageFormat::kPnm;
  layout.width = pnm->width, layout.height = pnm->height, layout.channels = pnm->channels;
  layout.bits = pnm->bits;
  layout.offset = pnm->offset;
  layout.stride = layout.row_bytes();
  layout.swapped = pnm->bits == 16 && kHostLittleEndian;
  return layout;
}

std::optional<RawLayout> bmp_layout(const std::uint8_t* start, std::size_t size) {
  const std::optional<BmpSamples> bmp = bmp_samples(start, size);
  if (!bmp) return std::nullopt;
  RawLayout layout;
  layout.format = ImageFormat::kBmp;
  layout.width = bmp->width, layout.height = bmp->height, layout.channels = bmp->pixel_bytes;
  layout.bits = 8;
  layout.offset = bmp->offset;
  layout.stride = bmp->stride;
  layout.bottom_up = !bmp->top_down;
  layout.bgr = true;
  layout.alpha_if_any = bmp->pixel_bytes == 4;
  layout.metadata.density = bmp->density;
  return layout;
}

std::optional<RawLayout> tiff_layout(const ReadAt& read, std::uint64_t file_size,
                                     const DecodeLimits& limits) {
  std::optional<TiffSamples> tiff = tiff_samples(read, file_size, limits);
  if (!tiff) return std::nullopt;
  RawLayout layout;
  layout.format = ImageFormat::kTiff;
  layout.width = tiff->width, layout.height = tiff->height, layout.channels = tiff->channels;
  layout.bits = tiff->bits;
  layout.stride = layout.row_bytes();  // a strip's rows follow one another
  layout.offset = tiff->strips.front();
  layout.strips = std::move(tiff->strips);
  layout.rows_per_strip = tiff->rows_per_strip;
  layout.swapped = tiff->bits == 16 && tiff->big_endian == kHostLittleEndian;
  layout.metadata = std::move(tiff->metadata);
  return layout;
}

// The layout of a file whose first `size` bytes are `start`, the rest read through `read`.
std::optional<RawLayout> layout_of(const std::uint8_t* start, std::size_t size, const ReadAt& read,
                                   std::uint64_t file_size, const DecodeLimits& limits) {
  const std::optional<ImageFormat> format = sniff_format(start, size, "");
  std::optional<RawLayout> layout;
  if (format == ImageFormat::kPnm) layout = pnm_layout(start, size);
  if (format == ImageFormat::kBmp) layout = bmp_layout(start, size);
  // (tiff_samples checks the size, and that the file holds every strip)
  if (format == ImageFormat::kTiff) return tiff_layout(read, file_size, limits);
  if (!layout) return std::nullopt;
  try {  // (BMP's decoder counts 32-bit pixels as 4 channels here too)
    check_image_size({layout->width, layout->height, layout->channels, layout->bits / 8}, limits);
  } catch (const IoError&) {
    return std::nullopt;
  }
  if (file_size < layout->offset || file_size - layout->offset < layout->stored_bytes()) {
    return std::nullopt;
  }
  return layout;
}

// Swaps each pixel's first and third samples (8 bits each) among `bytes` bytes of whole pixels.
void swap_red_blue(std::uint8_t* p, std::size_t bytes, int channels) {
  if (channels == 4) {  // a word at a time: the compiler vectorises it, not the bytes' loop
    constexpr std::uint32_t kKept = kHostLittleEndian ? 0xff00ff00u : 0x00ff00ffu;
    for (std::size_t i = 0; i + 4 <= bytes; i += 4) {
      std::uint32_t v;
      std::memcpy(&v, p + i, 4);
      v = (v & kKept) | ((v >> 16) & ~kKept & 0xffffu) | ((v & ~kKept & 0xffffu) << 16);
      std::memcpy(p + i, &v, 4);
    }
    return;
  }
  const auto c = static_cast<std::size_t>(channels);
  for (std::size_t i = 0; i + c <= bytes; i += c) std::swap(p[i], p[i + 2]);
}

// The layout `format` stores `image` in, where it stores it as it is.
std::optional<RawLayout> stored_layout(const AnyImage& image, ImageFormat format) {
  if (!image.data() || !stored_raw(format, image.bits(), image.channels())) return std::nullopt;
  RawLayout layout;
  layout.format = format;
  layout.width = image.width(), layout.height = image.height(), layout.channels = image.channels();
  layout.bits = image.bits();
  layout.stride = layout.row_bytes();
  if (format == ImageFormat::kPnm) {
    layout.swapped = layout.bits == 16 && kHostLittleEndian;
  } else {  // BMP: bottom-up, B, G, R, rows padded to 4 bytes
    layout.stride = bmp_stride(layout.width, layout.channels);
    layout.bottom_up = layout.bgr = true;
  }
  return layout;
}

// An uncompressed TIFF of `image` as encode_tiff writes it: libtiff's header, the raster's rows
// (the strips, in host byte order as the encoder writes them: nothing reordered), libtiff's
// directory and tag values with EXIF added.
std::optional<RawFile> tiff_raw_file(const AnyImage& image, const Metadata& metadata) {
  std::optional<TiffFrame> frame;
  if (image.bits() == 16) {
    frame = tiff_frame(image.get<Image16>(), metadata);
  } else {
    frame = tiff_frame(image.get<Image>(), metadata);
  }
  if (!frame) return std::nullopt;
  RawFile file;
  file.header.assign(frame->head.begin(), frame->head.end());
  file.rows.push_back({static_cast<const std::uint8_t*>(image.data()), image.byte_count()});
  file.trailer = std::move(frame->tail);
  return file;
}

// reorder_samples over the whole raster, blocks of rows on several threads. Isolated, so that a
// batch's thread waiting here takes up no other image's work.
void reorder_raster(const RawLayout& layout, void* samples) {
  if (!layout.swapped && !layout.bgr) return;
  const auto row = static_cast<std::size_t>(layout.row_bytes());
  const std::size_t grain = std::max<std::size_t>(1, kTaskBytes / row);
  auto* p = static_cast<std::uint8_t*>(samples);
  tbb::this_task_arena::isolate([&] {
    tbb::parallel_for(
        tbb::blocked_range<std::size_t>(0, static_cast<std::size_t>(layout.height), grain),
        [&](const tbb::blocked_range<std::size_t>& rows) {
          reorder_samples(layout, p + rows.begin() * row, rows.size() * row);
        });
  });
}

// The raster's rows in the order `layout` stores them, each followed by its padding; spans that
// follow one another in memory as one.
std::vector<ByteSpan> stored_rows(const RawLayout& layout, const void* samples) {
  const auto row = static_cast<std::size_t>(layout.row_bytes());
  const auto padding = static_cast<std::size_t>(layout.stride) - row;
  const auto* p = static_cast<const std::uint8_t*>(samples);
  std::vector<ByteSpan> spans;
  const auto add = [&](const std::uint8_t* data, std::size_t size) {
    if (!spans.empty() && spans.back().data + spans.back().size == data) {
      spans.back().size += size;
    } else {
      spans.push_back({data, size});
    }
  };
  for (std::size_t i = 0; i < static_cast<std::size_t>(layout.height); ++i) {
    add(p + layout.raster_row(i) * row, row);
    if (padding > 0) add(kZeros, padding);
  }
  return spans;
}

}  // namespace

std::optional<RawLayout> raw_layout(const std::uint8_t* start, std::size_t size,
                                    std::uint64_t file_size, const DecodeLimits& limits) {
  const ReadAt within = [&](std::uint64_t at, std::size_t n, std::uint8_t* out) {
    if (at > size || n > size - at) return false;
    std::memcpy(out, start + at, n);
    return true;
  };
  return layout_of(start, size, within, file_size, limits);
}

std::optional<RawLayout> raw_layout(const ReadAt& read, std::uint64_t file_size,
                                    const DecodeLimits& limits) {
  std::uint8_t start[kHeaderBytes];
  const auto size = static_cast<std::size_t>(std::min<std::uint64_t>(file_size, kHeaderBytes));
  if (size == 0 || !read(0, size, start)) return std::nullopt;
  return layout_of(start, size, read, file_size, limits);
}

DecodedImage raw_image(const RawLayout& layout) {
  DecodedImage d;
  d.format = layout.format;
  if (layout.bits == 16) {
    d.image = make_raster<std::uint16_t>(layout.width, layout.height, layout.channels);
  } else {
    d.image = make_raster<std::uint8_t>(layout.width, layout.height, layout.channels);
  }
  d.metadata = layout.metadata;
  if (layout.format == ImageFormat::kTiff) d.tiff_compression = TiffCompression::kNone;
  return d;
}

void reorder_samples(const RawLayout& layout, void* samples, std::size_t bytes) {
  if (layout.swapped) swap_sample_bytes(samples, bytes);
  if (layout.bgr && layout.bits == 8) {
    swap_red_blue(static_cast<std::uint8_t*>(samples), bytes, layout.channels);
  }
}

void swap_sample_bytes(void* samples, std::size_t bytes) {
  auto* p = static_cast<std::uint8_t*>(samples);
  for (std::size_t i = 0; i + 1 < bytes; i += 2) {
    std::uint16_t v;
    std::memcpy(&v, p + i, 2);
    v = __builtin_bswap16(v);
    std::memcpy(p + i, &v, 2);
  }
}

bool any_alpha(const void* samples, std::size_t bytes) {
  // Words OR-ed together, then their alpha bytes looked at: the same on either byte order.
  const auto* p = static_cast<const std::uint8_t*>(samples);
  std::uint64_t all = 0;
  std::size_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    std::uint64_t v;
    std::memcpy(&v, p + i, 8);
    all |= v;
  }
  std::uint8_t b[8];
  std::memcpy(b, &all, 8);
  bool alpha = b[3] != 0 || b[7] != 0;
  for (i += 3; i < bytes; i += 4) alpha = alpha || p[i] != 0;
  return alpha;
}

Image without_alpha(const Image& image) {
  Image rgb = make_image(image.width, image.height, 3);
  const auto w = static_cast<std::size_t>(image.width);
  const std::size_t grain = std::max<std::size_t>(1, kTaskBytes / (4 * w));
  tbb::this_task_arena::isolate([&] {
    tbb::parallel_for(
        tbb::blocked_range<std::size_t>(0, static_cast<std::size_t>(image.height), grain),
        [&](const tbb::blocked_range<std::size_t>& rows) {
          for (std::size_t y = rows.begin(); y != rows.end(); ++y) {
            const std::uint8_t* in = image.pixels.data() + y * 4 * w;
            std::uint8_t* out = rgb.pixels.data() + y * 3 * w;
            for (std::size_t x = 0; x < w; ++x, in += 4, out += 3)
              out[0] = in[0], out[1] = in[1], out[2] = in[2];
          }
        });
  });
  return rgb;
}

std::vector<ByteSpan> RawFile::pieces() const {
  std::vector<ByteSpan> all;
  all.reserve(rows.size() + 2);
  all.push_back({reinterpret_cast<const std::uint8_t*>(header.data()), header.size()});
  all.insert(all.end(), rows.begin(), rows.end());
  if (!trailer.empty()) all.push_back({trailer.data(), trailer.size()});
  return all;
}

bool stored_raw(ImageFormat format, int bits, int channels, TiffCompression tiff_compression) {
  if (format == ImageFormat::kPnm) return bits == 8 || bits == 16;
  if (format == ImageFormat::kTiff) {
    return tiff_compression == TiffCompression::kNone && (bits == 8 || bits == 16) &&
           channels >= 1 && channels <= 4;
  }
  return format == ImageFormat::kBmp && bits == 8 && (channels == 3 || channels == 4);
}

std::optional<RawFile> raw_file(AnyImage& image, ImageFormat format, const Metadata& metadata,
                                TiffCompression tiff_compression) {
  if (format == ImageFormat::kTiff) {
    if (!image.data() || !stored_raw(format, image.bits(), image.channels(), tiff_compression))
      return std::nullopt;
    return tiff_raw_file(image, metadata);
  }
  const std::optional<RawLayout> layout = stored_layout(image, format);
  if (!layout) return std::nullopt;
  RawFile file;
  try {  // an image the encoder refuses (BMP's 4 GiB) is left to it, to say so in its words
    file.header = format == ImageFormat::kPnm
                      ? pnm_header(layout->width, layout->height, layout->channels, layout->bits)
                      : bmp_header(layout->width, layout->height, layout->channels, metadata);
  } catch (const IoError&) {
    return std::nullopt;
  }
  reorder_raster(*layout, image.data());
  file.rows = stored_rows(*layout, image.data());
  return file;
}

}  // namespace gpublur
