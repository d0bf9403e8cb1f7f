// psd_decode.cpp — PSD's sections, and PackBits rows of planar channels.
#include "codecs/psd_decode.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>

#include "base/byte_reader.hpp"
#include "base/errors.hpp"

namespace gpublur {
namespace {

constexpr int kGray = 1, kRgb = 3;
constexpr int kIccResource = 1039;
constexpr int kXmpResource = 1060;

struct Header {
  int stored_channels = 0;  // every channel in the file
  std::uint32_t width = 0, height = 0;
  int depth = 0, mode = 0;
};

Header read_header(ByteReader& r) {
  const std::uint8_t* sig = r.take(4);
  if (std::memcmp(sig, "8BPS", 4) != 0) throw IoError("not a PSD file");
  const int version = r.u16be();
  if (version != 1)
    throw IoError("PSD version " + std::to_string(version) + " (PSB?): not supported");
  r.skip(6);
  Header h;
  h.stored_channels = r.u16be();
  h.height = r.u32be();
  h.width = r.u32be();
  h.depth = r.u16be();
  h.mode = r.u16be();
  return h;
}

// The ICC profile and XMP among the image resources, which end at `end`.
Metadata metadata_of_resources(ByteReader& r, std::size_t end) {
  Metadata m;
  while (r.position() + 12 <= end) {
    if (std::memcmp(r.take(4), "8BIM", 4) != 0) break;
    const int id = r.u16be();
    const std::size_t name = r.u8();  // a Pascal string, padded to an even length with its count
    r.skip(name + ((name + 1) % 2));
    const std::size_t size = r.u32be();
    if (size > end - r.position()) break;
    const std::uint8_t* body = r.take(size);
    if (id == kIccResource) m.icc.assign(body, body + size);
    if (id == kXmpResource) m.xmp.assign(body, body + size);
    if (size % 2) r.skip(1);
  }
  return m;
}

// PackBits: n < 128, n + 1 literal bytes; n > 128, one byte 257 - n times; 128, nothing.
void unpack_bits(ByteReader& r, std::size_t packed, std::uint8_t* out, std::size_t bytes) {
  const std::size_t end = r.position() + packed;
  std::size_t done = 0;
  while (done < bytes) {
    if (r.position() >= end) throw IoError("damaged PSD: a short PackBits row");
    const int n = r.u8();
    if (n < 128) {
      const std::size_t count =
          std::min<std::size_t>(static_cast<std::size_t>(n) + 1, bytes - done);
      std::memcpy(out + done, r.take(static_cast<std::size_t>(n) + 1), count);
      done += count;
    } else if (n > 128) {
      const std::size_t count =
          std::min<std::size_t>(257u - static_cast<unsigned>(n), bytes - done);
      std::memset(out + done, r.u8(), count);
      done += count;
    }
  }
  r.seek(end);
}

// Photoshop stores the colours of a transparent composite over white: c = a c' + (1 - a) white.
template <typename Sample>
void remove_white_matte(Raster<Sample>& image) {
  constexpr double kMax = std::numeric_limits<Sample>::max();
  const auto c = static_cast<std::size_t>(image.channels);
  for (std::size_t i = 0; i < image.pixels.size(); i += c) {
    const double a = image.pixels[i + c - 1];
    if (a == 0 || a == kMax) continue;
    for (std::size_t k = 0; k + 1 < c; ++k) {
      const double v = (image.pixels[i + k] - kMax * (1 - a / kMax)) * kMax / a;
      image.pixels[i + k] = static_cast<Sample>(std::clamp(v, 0.0, kMax));
    }
  }
}

template <typename Sample>
Raster<Sample> read_planes(ByteReader& r, const Header& h, int channels, int compression) {
  Raster<Sample> image =
      make_raster<Sample>(static_cast<int>(h.width), static_cast<int>(h.height), channels);
  const std::size_t w = h.width, rows = h.height, bytes = sizeof(Sample) * w;
  const auto stored = static_cast<std::size_t>(h.stored_channels);
  std::vector<std::size_t> packed;  // PackBits: each row's size, for every stored channel
  if (compression == 1) {
    check_data_holds(r.remaining(), stored * rows * 2, "row sizes");
    std::uint64_t total = 0;
    for (std::size_t i = 0; i < stored * rows; ++i) total += packed.emplace_back(r.u16be());
    check_data_holds(r.remaining(), total, "compressed rows");
  } else {
    check_data_holds(r.remaining(), stored * rows * bytes, "pixel data");
  }
  std::vector<std::uint8_t> row(bytes);
  const auto c = static_cast<std::size_t>(channels);
  for (std::size_t k = 0; k < c; ++k) {
    for (std::size_t y = 0; y < rows; ++y) {
      if (compression == 1) {
        unpack_bits(r, packed[k * rows + y], row.data(), bytes);
      } else {
        std::memcpy(row.data(), r.take(bytes), bytes);
      }
      Sample* out = image.pixels.data() + y * w * c + k;
      for (std::size_t x = 0; x < w; ++x) {
        out[x * c] =
            sizeof(Sample) == 1 ? row[x] : static_cast<Sample>(row[2 * x] << 8 | row[2 * x + 1]);
      }
    }
  }
  if (c == 2 || c == 4) remove_white_matte(image);
  return image;
}

}  // namespace

DecodedImage decode_psd(const std::uint8_t* data, std::size_t size, const DecodeLimits& limits) {
  ByteReader r(data, size);
  const Header h = read_header(r);
  if ((h.mode != kGray && h.mode != kRgb) || (h.depth != 8 && h.depth != 16)) {
    throw IoError("PSD of colour mode " + std::to_string(h.mode) + ", " + std::to_string(h.depth) +
                  " bits: only 8- and 16-bit gray and RGB are supported");
  }
  const int colour = h.mode == kGray ? 1 : 3;
  if (h.stored_channels < colour) throw IoError("damaged PSD: too few channels");
  check_image_size({h.width, h.height, colour + (h.stored_channels > colour ? 1 : 0), h.depth / 8},
                   limits);
  r.skip(r.u32be());  // colour mode data
  const std::size_t resources = r.u32be();
  const std::size_t resources_end = r.position() + resources;
  check_data_holds(r.remaining(), resources, "image resources");
  DecodedImage result;
  result.metadata = metadata_of_resources(r, resources_end);
  r.seek(resources_end);
  r.skip(r.u32be());  // layers and masks
  const int compression = r.u16be();
  if (compression != 0 && compression != 1) {
    throw IoError("PSD compression " + std::to_string(compression) + ": not supported");
  }
  const int channels = colour + (h.stored_channels > colour ? 1 : 0);
  result.format = ImageFormat::kPsd;
  if (h.depth == 16) {
    result.image = read_planes<std::uint16_t>(r, h, channels, compression);
  } else {
    result.image = read_planes<std::uint8_t>(r, h, channels, compression);
  }
  return result;
}

}  // namespace gpublur
