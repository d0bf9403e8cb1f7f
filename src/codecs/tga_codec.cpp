// tga_codec.cpp — TGA's header, colour map, packets and pixel layouts.
#include "codecs/tga_codec.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <string>

#include "base/byte_reader.hpp"
#include "base/errors.hpp"

namespace gpublur {
namespace {

struct Header {
  int id_length, map_type, type, map_first, map_length, map_bits;
  int width, height, bits, descriptor;
};

Header read_header(ByteReader& r) {
  Header h;
  h.id_length = r.u8();
  h.map_type = r.u8();
  h.type = r.u8();
  h.map_first = r.u16le();
  h.map_length = r.u16le();
  h.map_bits = r.u8();
  r.skip(4);  // origin
  h.width = r.u16le();
  h.height = r.u16le();
  h.bits = r.u8();
  h.descriptor = r.u8();
  return h;
}

// A pixel of `bits` (15/16: 5-5-5, an attribute bit ignored; 24: BGR; 32: BGRA; 8: gray or an
// index; 16 gray: gray, alpha) as up to 4 samples.
using Pixel = std::array<std::uint8_t, 4>;
Pixel read_pixel(const std::uint8_t* p, int bits, bool gray) {
  if (gray) return {p[0], bits == 16 ? p[1] : std::uint8_t{255}, 0, 0};
  switch (bits) {
    case 15:
    case 16: {
      const unsigned v = p[0] | unsigned{p[1]} << 8;
      const auto five = [](unsigned x) {
        return static_cast<std::uint8_t>((x & 31u) * 255u / 31u);
      };
      return {five(v >> 10), five(v >> 5), five(v), 255};
    }
    case 24:
      return {p[2], p[1], p[0], 255};
    case 32:
      return {p[2], p[1], p[0], p[3]};
    default:
      return {p[0], 0, 0, 0};
  }
}

int bytes_of(int bits) { return (bits + 7) / 8; }

// Pixel values in file order, each `bytes` long: in the file itself when raw, else decoded from
// run-length packets into `decoded`.
const std::uint8_t* read_values(ByteReader& r, std::size_t count, int bytes, bool rle,
                                std::vector<std::uint8_t>& decoded) {
  const auto b = static_cast<std::size_t>(bytes);
  if (!rle) {
    check_data_holds(r.remaining(), count * b, "pixel data");
    return r.take(count * b);
  }
  // A packet covers at most 128 pixels in 1 + bytes bytes.
  check_data_holds(r.remaining(), (count + 127) / 128 * (1 + b), "run-length packets");
  decoded.resize(count * b);
  std::size_t done = 0;
  while (done < count) {
    const std::uint8_t packet = r.u8();
    const std::size_t n = std::min<std::size_t>((packet & 127u) + 1u, count - done);
    if (packet & 128u) {
      const std::uint8_t* v = r.take(b);
      for (std::size_t i = 0; i < n; ++i) std::memcpy(&decoded[(done + i) * b], v, b);
    } else {
      std::memcpy(&decoded[done * b], r.take(n * b), n * b);
      r.skip(((packet & 127u) + 1u - n) * b);  // a raw packet running past the image
    }
    done += n;
  }
  return decoded.data();
}

struct Source {
  const std::uint8_t* values;
  int bytes;
  const Header& h;
  const std::vector<Pixel>& map;
  bool mapped, gray;

  Pixel pixel(std::size_t i) const {
    const std::uint8_t* v = values + i * static_cast<std::size_t>(bytes);
    if (!mapped) return read_pixel(v, h.bits, gray);
    const int index = (h.bits == 16 ? v[0] | v[1] << 8 : v[0]) - h.map_first;
    return index >= 0 && index < static_cast<int>(map.size()) ? map[static_cast<std::size_t>(index)]
                                                              : Pixel{0, 0, 0, 255};
  }
};

}  // namespace

DecodedImage decode_tga(const std::uint8_t* data, std::size_t size, const DecodeLimits& limits) {
  ByteReader r(data, size);
  const Header h = read_header(r);
  const int base = h.type & 7;  // 1 mapped, 2 true colour, 3 gray; +8 run-length encoded
  const bool rle = h.type >= 9, mapped = base == 1, gray = base == 3;
  const bool depth_ok = mapped ? (h.bits == 8 || h.bits == 16) && h.map_type == 1
                        : gray ? h.bits == 8 || h.bits == 16
                               : h.bits == 15 || h.bits == 16 || h.bits == 24 || h.bits == 32;
  if ((h.type != base && h.type != base + 8) || base < 1 || base > 3 || !depth_ok) {
    throw IoError("TGA of type " + std::to_string(h.type) + " with " + std::to_string(h.bits) +
                  " bits per pixel: not supported");
  }
  check_image_size({h.width, h.height, gray ? 2 : 4, 1}, limits);  // alpha: known after decoding
  r.skip(static_cast<std::size_t>(h.id_length));
  std::vector<Pixel> map;
  if (h.map_type == 1) {
    const int entry = bytes_of(h.map_bits);
    const std::size_t map_bytes =
        static_cast<std::size_t>(h.map_length) * static_cast<std::size_t>(entry);
    if (!mapped) {
      // A colour map on a true-colour or gray image is unused: skip it, whatever its entries.
      r.skip(map_bytes);
    } else {
      if (h.map_bits != 15 && h.map_bits != 16 && h.map_bits != 24 && h.map_bits != 32) {
        throw IoError("TGA colour map of " + std::to_string(h.map_bits) +
                      "-bit entries: not supported");
      }
      const std::uint8_t* entries = r.take(map_bytes);
      for (int i = 0; i < h.map_length; ++i) {
        map.push_back(read_pixel(entries + i * entry, h.map_bits, false));
      }
    }
  }
  const std::size_t count = static_cast<std::size_t>(h.width) * static_cast<std::size_t>(h.height);
  std::vector<std::uint8_t> decoded;
  const int bytes = bytes_of(h.bits);
  const Source source{read_values(r, count, bytes, rle, decoded), bytes, h, map, mapped, gray};
  const int colour_bits = mapped ? h.map_bits : h.bits;
  const bool has_alpha_field = gray ? h.bits == 16 : colour_bits == 32;
  // 32-bit pixels whose header gives no alpha bits and whose alpha bytes are all 0: no alpha.
  bool alpha = has_alpha_field && (h.descriptor & 15) != 0;
  for (std::size_t i = 0; has_alpha_field && !alpha && i < count; ++i) {
    alpha = source.pixel(i)[gray ? 1 : 3] != 0;
  }
  const int channels = (gray ? 1 : 3) + (alpha ? 1 : 0);
  DecodedImage result;
  result.format = ImageFormat::kTga;
  result.image = make_image(h.width, h.height, channels);
  Image& image = result.image.get<Image>();
  const bool top_first = (h.descriptor & 32) != 0, right_first = (h.descriptor & 16) != 0;
  const auto w = static_cast<std::size_t>(h.width), c = static_cast<std::size_t>(channels);
  for (std::size_t y = 0; y < static_cast<std::size_t>(h.height); ++y) {
    const std::size_t row = top_first ? y : static_cast<std::size_t>(h.height) - 1 - y;
    for (std::size_t x = 0; x < w; ++x) {
      const Pixel p = source.pixel(y * w + (right_first ? w - 1 - x : x));
      std::uint8_t* out = &image.pixels[(row * w + x) * c];
      if (gray) {
        out[0] = p[0];
        if (alpha) out[1] = p[1];
      } else {
        out[0] = p[0], out[1] = p[1], out[2] = p[2];
        if (alpha) out[3] = p[3];
      }
    }
  }
  return result;
}

std::vector<std::uint8_t> encode_tga(const Image& image) {
  const auto c = static_cast<std::size_t>(image.channels);
  const bool gray = c <= 2;
  std::vector<std::uint8_t> out = {
      0, 0, static_cast<std::uint8_t>(gray ? 11 : 10), 0, 0, 0, 0, 0, 0, 0, 0, 0};
  for (int v : {image.width, image.height}) {
    out.push_back(static_cast<std::uint8_t>(v));
    out.push_back(static_cast<std::uint8_t>(v >> 8));
  }
  out.push_back(static_cast<std::uint8_t>(8 * c));
  out.push_back(static_cast<std::uint8_t>(32 | (c == 2 || c == 4 ? 8 : 0)));  // top row first
  // File order of a pixel's bytes: gray(, alpha), or BGR(A).
  const auto file_pixel = [&](std::size_t i, std::uint8_t* p) {
    const std::uint8_t* s = &image.pixels[i * c];
    if (gray) {
      std::memcpy(p, s, c);
    } else {
      p[0] = s[2], p[1] = s[1], p[2] = s[0];
      if (c == 4) p[3] = s[3];
    }
  };
  const std::size_t count = image.pixels.size() / c, w = static_cast<std::size_t>(image.width);
  std::uint8_t a[4], b[4];
  for (std::size_t row = 0; row < count; row += w) {  // packets never cross a row
    std::size_t x = 0;
    while (x < w) {
      // A run of equal pixels (2 or more) as one packet; else raw pixels up to the next run.
      std::size_t run = 1;
      file_pixel(row + x, a);
      while (x + run < w && run < 128) {
        file_pixel(row + x + run, b);
        if (std::memcmp(a, b, c) != 0) break;
        ++run;
      }
      if (run >= 2) {
        out.push_back(static_cast<std::uint8_t>(128 + run - 1));
        out.insert(out.end(), a, a + c);
        x += run;
        continue;
      }
      std::size_t raw = 1;
      while (x + raw < w && raw < 128) {
        file_pixel(row + x + raw, b);
        if (x + raw + 1 < w) {
          file_pixel(row + x + raw + 1, a);
          if (std::memcmp(a, b, c) == 0) break;  // a run starts here
        }
        ++raw;
      }
      out.push_back(static_cast<std::uint8_t>(raw - 1));
      for (std::size_t i = 0; i < raw; ++i) {
        file_pixel(row + x + i, b);
        out.insert(out.end(), b, b + c);
      }
      x += raw;
    }
  }
  return out;
}

}  // namespace gpublur
