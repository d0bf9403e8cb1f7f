// bmp_header.cpp — BMP's file and info headers, their masks, and the headers encode_bmp writes.
#include "codecs/bmp_header.hpp"

#include <cmath>

#include "base/errors.hpp"
#include "image/image.hpp"

namespace gpublur {
namespace {

void read_masks(ByteReader& r, BmpHeader& h, int count) {
  for (int i = 0; i < count; ++i) h.masks[static_cast<std::size_t>(i)] = r.u32le();
}

void put16(std::string& out, std::uint32_t v) {
  out.push_back(static_cast<char>(v & 0xffu));
  out.push_back(static_cast<char>((v >> 8) & 0xffu));
}
void put32(std::string& out, std::uint32_t v) {
  put16(out, v & 0xffffu);
  put16(out, v >> 16);
}

std::int32_t pixels_per_metre(const std::optional<Density>& d, bool x) {
  if (!d || d->unit == Density::Unit::kNone) return 0;
  const double v = (x ? d->x : d->y) * (d->unit == Density::Unit::kInch ? 100.0 / 2.54 : 100.0);
  return v > 0 && v < 2e9 ? static_cast<std::int32_t>(std::lround(v)) : 0;
}

// Whether decode_bmp takes each pixel's R, G, B (and A) from bytes 2, 1, 0 (and 3) as they are:
// BI_RGB's layouts, or bit fields of exactly those bytes. A 32-bit pixel whose alpha mask is 0
// loses its fourth byte (3 channels from 4 bytes): not so.
bool whole_byte_fields(const BmpHeader& h) {
  if (h.bpp != 24 && h.bpp != 32) return false;
  if (h.compression == kBmpRgb) return true;
  if (h.compression != kBmpBitFields && h.compression != kBmpAlphaBitFields) return false;
  const std::uint32_t alpha = h.bpp == 32 ? 0xff000000u : 0;
  return h.masks == std::array<std::uint32_t, 4>{0xff0000u, 0xff00u, 0xffu, alpha};
}

}  // namespace

BmpHeader read_bmp_header(ByteReader& r) {
  BmpHeader h;
  if (r.u8() != 'B' || r.u8() != 'M') throw IoError("not a BMP file");
  r.skip(8);  // file size, reserved
  h.data_offset = r.u32le();
  const std::uint32_t dib = r.u32le();
  const std::size_t dib_start = r.position() - 4;
  if (dib == 12) {
    h.core = true;
    h.width = r.u16le();
    h.height = r.u16le();
    r.skip(2);
    h.bpp = r.u16le();
  } else if (dib >= 40 && dib <= 124) {
    h.width = r.i32le();
    const std::int64_t height = r.i32le();
    h.top_down = height < 0;
    h.height = height < 0 ? -height : height;
    r.skip(2);  // planes
    h.bpp = r.u16le();
    h.compression = r.u32le();
    r.skip(4);  // image size
    h.x_ppm = r.i32le();
    h.y_ppm = r.i32le();
    h.colours_used = r.u32le();
    r.skip(4);  // important colours
    const bool fields = h.compression == kBmpBitFields || h.compression == kBmpAlphaBitFields;
    if (dib >= 52) {
      read_masks(r, h, dib >= 56 ? 4 : 3);
    } else if (fields) {  // after a 40-byte header
      read_masks(r, h, h.compression == kBmpAlphaBitFields ? 4 : 3);
      return h;
    }
    r.seek(dib_start + dib);
    if (!fields) h.masks = {};  // masks in a V4/V5 header count only with BI_BITFIELDS
  } else {
    throw IoError("BMP with a header of " + std::to_string(dib) + " bytes");
  }
  return h;
}

std::optional<Density> bmp_density(const BmpHeader& h) {
  if (h.x_ppm <= 0 || h.y_ppm <= 0) return std::nullopt;
  return Density{h.x_ppm / 100.0, h.y_ppm / 100.0, Density::Unit::kCentimetre};
}

std::optional<BmpSamples> bmp_samples(const std::uint8_t* data, std::size_t size) {
  BmpHeader h;
  try {
    ByteReader r(data, size);
    h = read_bmp_header(r);
  } catch (const IoError&) {
    return std::nullopt;
  }
  if (!whole_byte_fields(h) || h.width < 1 || h.width > kMaxDimension || h.height < 1 ||
      h.height > kMaxDimension) {
    return std::nullopt;
  }
  BmpSamples s;
  s.width = static_cast<int>(h.width), s.height = static_cast<int>(h.height);
  s.pixel_bytes = h.bpp / 8;
  s.top_down = h.top_down;
  s.offset = h.data_offset;
  s.stride = bmp_stride(s.width, s.pixel_bytes);
  s.density = bmp_density(h);
  return s;
}

std::size_t bmp_stride(int width, int channels) {
  const std::size_t pixel = channels == 2 || channels == 4 ? 4 : 3;
  return (static_cast<std::size_t>(width) * pixel + 3) / 4 * 4;
}

std::string bmp_header(int width, int height, int channels, const Metadata& metadata) {
  const bool alpha = channels == 2 || channels == 4;
  const std::uint32_t header = alpha ? 108 : 40;  // BITMAPV4HEADER carries the alpha mask
  const std::size_t pixel_bytes = bmp_stride(width, channels) * static_cast<std::size_t>(height);
  if (pixel_bytes > 0xffffffffu - 14 - header) throw IoError("image too large for BMP");
  std::string out = "BM";
  put32(out, static_cast<std::uint32_t>(14 + header + pixel_bytes));
  put32(out, 0);
  put32(out, 14 + header);
  put32(out, header);
  put32(out, static_cast<std::uint32_t>(width));
  put32(out, static_cast<std::uint32_t>(height));  // positive: bottom-up
  put16(out, 1);
  put16(out, alpha ? 32 : 24);
  put32(out, alpha ? kBmpBitFields : kBmpRgb);
  put32(out, static_cast<std::uint32_t>(pixel_bytes));
  put32(out, static_cast<std::uint32_t>(pixels_per_metre(metadata.density, true)));
  put32(out, static_cast<std::uint32_t>(pixels_per_metre(metadata.density, false)));
  put32(out, 0);
  put32(out, 0);
  if (alpha) {
    for (std::uint32_t mask : {0xff0000u, 0xff00u, 0xffu, 0xff000000u}) put32(out, mask);
    put32(out, 0x73524742);  // LCS_sRGB
    out.append(48, '\0');    // endpoints and gamma, unused for sRGB
  }
  return out;
}

}  // namespace gpublur
