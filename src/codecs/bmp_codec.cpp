// bmp_codec.cpp — BMP's palettes, bit fields, run-length codes and rows (headers: bmp_header).
#include "codecs/bmp_codec.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <array>
#include <optional>
#include <string>

#include "base/byte_reader.hpp"
#include "base/errors.hpp"
#include "base/large_buffer.hpp"
#include "codecs/bmp_header.hpp"

namespace gpublur {
namespace {

// Bits above a mask's lowest set bit, and how many are set.
struct Field {
  int shift = 0;
  int bits = 0;
};
Field field_of(std::uint32_t mask) {
  Field f;
  if (mask == 0) return f;
  while (!(mask & 1u)) mask >>= 1, ++f.shift;
  while (mask & 1u) mask >>= 1, ++f.bits;
  return f;
}

// A field's value widened (bit replication) or narrowed (top bits) to 8 bits, as stb_image does.
std::uint8_t eight_bits(std::uint32_t pixel, const Field& f) {
  if (f.bits == 0) return 0;
  std::uint32_t v = (pixel >> f.shift) & ((f.bits >= 32 ? 0u : (1u << f.bits)) - 1u);
  if (f.bits >= 8) return static_cast<std::uint8_t>(v >> (f.bits - 8));
  static const unsigned kMultiply[9] = {0, 0xff, 0x55, 0x49, 0x11, 0x21, 0x41, 0x81, 0x01};
  static const unsigned kShift[9] = {0, 0, 0, 1, 0, 2, 4, 6, 0};
  return static_cast<std::uint8_t>((v * kMultiply[f.bits]) >> kShift[f.bits]);
}

using Palette = std::vector<std::array<std::uint8_t, 3>>;

Palette read_palette(ByteReader& r, const BmpHeader& h) {
  const std::uint32_t full = 1u << h.bpp;
  const std::uint32_t count = h.colours_used == 0 || h.colours_used > full ? full : h.colours_used;
  Palette p(256, {0, 0, 0});  // indices past the palette read as black
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::uint8_t* e = r.take(h.core ? 3 : 4);
    p[i] = {e[2], e[1], e[0]};
  }
  return p;
}

// Palette indices of the whole image, top row first, from RLE8 or RLE4 codes. Pixels the codes
// skip (deltas, early ends) keep index 0.
std::vector<std::uint8_t> run_length_indices(ByteReader& r, const BmpHeader& h) {
  const auto w = static_cast<std::size_t>(h.width), height = static_cast<std::size_t>(h.height);
  std::vector<std::uint8_t> indices(w * height, 0);
  std::size_t x = 0, y = 0;  // y counts rows in file order (bottom-up unless top_down)
  const bool four = h.compression == kBmpRle4;
  const auto put = [&](std::uint8_t index) {
    if (x < w && y < height) {
      const std::size_t row = h.top_down ? y : height - 1 - y;
      indices[row * w + x] = index;
    }
    ++x;
  };
  while (y < height && !r.at_end()) {
    const std::uint8_t count = r.u8(), value = r.u8();
    if (count > 0) {  // a run: `count` pixels of value (RLE4: its two nibbles alternating)
      for (int i = 0; i < count; ++i) put(four ? (i % 2 ? value & 15 : value >> 4) : value);
    } else if (value == 0) {  // end of line
      x = 0, ++y;
    } else if (value == 1) {  // end of bitmap
      break;
    } else if (value == 2) {  // delta
      x += r.u8();
      y += r.u8();
    } else {  // `value` literal pixels, padded to 16 bits
      const std::size_t bytes = four ? (value + 1u) / 2 : value;
      const std::uint8_t* literal = r.take(bytes);
      for (int i = 0; i < value; ++i) {
        put(four ? (i % 2 ? literal[i / 2] & 15 : literal[i / 2] >> 4) : literal[i]);
      }
      if (bytes % 2) r.skip(1);
    }
  }
  return indices;
}

std::uint32_t pixel_bits(const std::uint8_t* row, std::size_t x, int bpp) {
  switch (bpp) {
    case 1:
      return (row[x / 8] >> (7 - x % 8)) & 1u;
    case 4:
      return (row[x / 2] >> (x % 2 ? 0 : 4)) & 15u;
    case 8:
      return row[x];
    case 16:
      return row[2 * x] | std::uint32_t{row[2 * x + 1]} << 8;
    case 24:
      return row[3 * x] | std::uint32_t{row[3 * x + 1]} << 8 | std::uint32_t{row[3 * x + 2]} << 16;
    default:
      return row[4 * x] | std::uint32_t{row[4 * x + 1]} << 8 | std::uint32_t{row[4 * x + 2]} << 16 |
             std::uint32_t{row[4 * x + 3]} << 24;
  }
}

// Where each of a 24- or 32-bit pixel's fields is one whole byte of it (BI_RGB's layouts, and bit
// fields of whole bytes), the byte each is, -1 for a field that is not there: those pixels are
// copied a byte at a time, as eight_bits would give them, without its shifts and masks.
std::optional<std::array<int, 4>> byte_fields(const Field (&fields)[4], int bpp) {
  if (bpp != 24 && bpp != 32) return std::nullopt;
  std::array<int, 4> bytes{};
  for (std::size_t k = 0; k < 4; ++k) {
    const Field& f = fields[k];
    if (f.bits == 0 && k == 3) {
      bytes[k] = -1;
    } else if (f.bits == 8 && f.shift % 8 == 0 && f.shift / 8 < bpp / 8) {
      bytes[k] = f.shift / 8;
    } else {
      return std::nullopt;
    }
  }
  return bytes;
}

// Runs `row(y)` for every y below `height`, blocks of rows on several threads: a large image's
// rows are a copy as long as its file, which one thread moves at a fraction of the memory's
// speed. Isolated, so that a batch's thread waiting here takes up no other image's work.
template <typename Row>
void for_each_row(std::size_t height, const Row& row) {
  constexpr std::size_t kRowsATask = 64;
  tbb::this_task_arena::isolate([&] {
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, height, kRowsATask),
                      [&](const tbb::blocked_range<std::size_t>& rows) {
                        for (std::size_t y = rows.begin(); y != rows.end(); ++y) row(y);
                      });
  });
}

// Rows of whole-byte fields: `c` channels of each pixel's bytes `at`.
void copy_byte_fields(const std::uint8_t* data, std::size_t stride, const BmpHeader& h,
                      const std::array<int, 4>& at, Image& image) {
  const auto w = static_cast<std::size_t>(h.width), c = static_cast<std::size_t>(image.channels);
  const std::size_t step = static_cast<std::size_t>(h.bpp) / 8;
  const auto r = static_cast<std::size_t>(at[0]), g = static_cast<std::size_t>(at[1]),
             b = static_cast<std::size_t>(at[2]);
  for_each_row(static_cast<std::size_t>(h.height), [&](std::size_t y) {
    const std::uint8_t* row =
        data + (h.top_down ? y : static_cast<std::size_t>(h.height) - 1 - y) * stride;
    std::uint8_t* out = image.pixels.data() + y * image.row_samples();
    if (c == 3) {
      for (std::size_t x = 0; x < w; ++x, row += step, out += 3)
        out[0] = row[r], out[1] = row[g], out[2] = row[b];
    } else {
      const auto a = static_cast<std::size_t>(at[3]);
      for (std::size_t x = 0; x < w; ++x, row += step, out += 4)
        out[0] = row[r], out[1] = row[g], out[2] = row[b], out[3] = row[a];
    }
  });
}

// Uncompressed pixels (and bit fields): colours through the palette or the masks.
Image read_pixels(ByteReader& r, const BmpHeader& h, const Palette& palette,
                  std::array<std::uint32_t, 4> masks) {
  const std::size_t stride =
      (static_cast<std::size_t>(h.width) * static_cast<std::size_t>(h.bpp) + 31) / 32 * 4;
  check_data_holds(r.remaining(), stride * static_cast<std::size_t>(h.height), "pixel data");
  const bool paletted = h.bpp <= 8;
  if (!paletted && masks == std::array<std::uint32_t, 4>{}) {  // BI_RGB's layouts
    masks = h.bpp == 16 ? std::array<std::uint32_t, 4>{0x7c00, 0x3e0, 0x1f, 0}
                        : std::array<std::uint32_t, 4>{0xff0000, 0xff00, 0xff,
                                                       h.bpp == 32 ? 0xff000000u : 0};
  }
  const Field fields[4] = {field_of(masks[0]), field_of(masks[1]), field_of(masks[2]),
                           field_of(masks[3])};
  const std::uint8_t* data = r.take(stride * static_cast<std::size_t>(h.height));
  const auto w = static_cast<std::size_t>(h.width);
  const std::optional<std::array<int, 4>> bytes =
      paletted ? std::nullopt : byte_fields(fields, h.bpp);
  // Alpha where a mask has it and some pixel's is not 0 (all 0: the field is unused padding).
  bool alpha = false;
  if (!paletted && fields[3].bits > 0) {
    for (std::size_t y = 0; y < static_cast<std::size_t>(h.height) && !alpha; ++y) {
      const std::uint8_t* row = data + y * stride;
      if (bytes) {
        const std::size_t step = static_cast<std::size_t>(h.bpp) / 8;
        for (std::size_t x = 0; x < w && !alpha; ++x)
          alpha = row[x * step + static_cast<std::size_t>((*bytes)[3])] != 0;
        continue;
      }
      for (std::size_t x = 0; x < w && !alpha; ++x)
        alpha = eight_bits(pixel_bits(row, x, h.bpp), fields[3]) != 0;
    }
  }
  Image image = make_image(static_cast<int>(h.width), static_cast<int>(h.height), alpha ? 4 : 3);
  if (bytes) {
    copy_byte_fields(data, stride, h, *bytes, image);
    return image;
  }
  const auto c = static_cast<std::size_t>(image.channels);
  for (std::size_t y = 0; y < static_cast<std::size_t>(h.height); ++y) {
    const std::uint8_t* row =
        data + (h.top_down ? y : static_cast<std::size_t>(h.height) - 1 - y) * stride;
    std::uint8_t* out = image.pixels.data() + y * image.row_samples();
    for (std::size_t x = 0; x < w; ++x, out += c) {
      const std::uint32_t v = pixel_bits(row, x, h.bpp);
      if (paletted) {
        const auto& e = palette[v & 255u];
        out[0] = e[0], out[1] = e[1], out[2] = e[2];
        continue;
      }
      for (std::size_t k = 0; k < c; ++k) out[k] = eight_bits(v, fields[k]);
    }
  }
  return image;
}

Image from_indices(const std::vector<std::uint8_t>& indices, const BmpHeader& h,
                   const Palette& palette) {
  Image image = make_image(static_cast<int>(h.width), static_cast<int>(h.height), 3);
  for (std::size_t i = 0; i < indices.size(); ++i) {
    const auto& e = palette[indices[i]];
    image.pixels[3 * i] = e[0], image.pixels[3 * i + 1] = e[1], image.pixels[3 * i + 2] = e[2];
  }
  return image;
}

}  // namespace

DecodedImage decode_bmp(const std::uint8_t* data, std::size_t size, const DecodeLimits& limits) {
  ByteReader r(data, size);
  const BmpHeader h = read_bmp_header(r);
  // Alpha is possible in 16- and 32-bit pixels: counted as 4 channels until the pixels say.
  check_image_size({h.width, h.height, h.bpp == 16 || h.bpp == 32 ? 4 : 3, 1}, limits);
  const bool rle = h.compression == kBmpRle8 || h.compression == kBmpRle4;
  const bool known_depth =
      h.bpp == 1 || h.bpp == 4 || h.bpp == 8 || h.bpp == 16 || h.bpp == 24 || h.bpp == 32;
  if (!known_depth || (rle && h.bpp != (h.compression == kBmpRle8 ? 8 : 4)) ||
      (h.compression != kBmpRgb && !rle && h.compression != kBmpBitFields &&
       h.compression != kBmpAlphaBitFields)) {
    throw IoError("BMP of " + std::to_string(h.bpp) + " bits per pixel, compression " +
                  std::to_string(h.compression) + ": not supported");
  }
  const Palette palette = h.bpp <= 8 ? read_palette(r, h) : Palette{};
  r.seek(h.data_offset);
  DecodedImage result;
  result.format = ImageFormat::kBmp;
  result.image = rle ? from_indices(run_length_indices(r, h), h, palette)
                     : read_pixels(r, h, palette, h.masks);
  result.metadata.density = bmp_density(h);
  return result;
}

std::vector<std::uint8_t> encode_bmp(const Image& image, const Metadata& metadata) {
  const bool alpha = image.channels == 2 || image.channels == 4;
  const std::size_t pixel_size = alpha ? 4 : 3;
  const std::size_t stride = bmp_stride(image.width, image.channels);
  const std::string header = bmp_header(image.width, image.height, image.channels, metadata);
  const std::size_t pixel_bytes = stride * static_cast<std::size_t>(image.height);
  std::vector<std::uint8_t> out;
  reserve_large(out, header.size() + pixel_bytes);
  out.assign(header.begin(), header.end());
  const auto c = static_cast<std::size_t>(image.channels);
  const auto w = static_cast<std::size_t>(image.width);
  const std::size_t start = out.size();
  out.resize(start + pixel_bytes);  // rows' padding 0
  const auto height = static_cast<std::size_t>(image.height);
  for_each_row(height, [&](std::size_t y) {  // bottom-up: the file's row i is the image's last - i
    const std::uint8_t* src = image.pixels.data() + y * image.row_samples();
    std::uint8_t* px = out.data() + start + (height - 1 - y) * stride;
    if (c == 3) {  // the common case, without the others' choices in its loop
      for (std::size_t x = 0; x < w; ++x, src += 3, px += 3)
        px[0] = src[2], px[1] = src[1], px[2] = src[0];
      return;
    }
    for (std::size_t x = 0; x < w; ++x, src += c, px += pixel_size) {
      const bool gray = c <= 2;
      px[0] = src[gray ? 0 : 2], px[1] = src[gray ? 0 : 1], px[2] = src[0];
      if (alpha) px[3] = src[c - 1];
    }
  });
  return out;
}

}  // namespace gpublur
