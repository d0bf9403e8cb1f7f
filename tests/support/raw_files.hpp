// raw_files.hpp — test support: the raw route's two halves on files in memory, without the batch's
// threads and descriptors: what a reader of a raw layout makes of a file (each stored row into its
// raster row, reordered, alpha dropped where no pixel has any), a raw file's bytes in one piece,
// and BMP files as other writers make them.
#pragma once

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "codecs/raw_samples.hpp"
#include "image/image.hpp"
#include "support/test_bytes.hpp"

namespace gpublur::test {

inline DecodedImage read_by_layout(const Bytes& file, const RawLayout& layout) {
  DecodedImage d = raw_image(layout);
  auto* raster = static_cast<std::uint8_t*>(d.image.data());
  const auto row = static_cast<std::size_t>(layout.row_bytes());
  for (std::size_t i = 0; i < static_cast<std::size_t>(layout.height); ++i) {
    std::memcpy(raster + layout.raster_row(i) * row,
                file.data() + layout.offset + i * layout.stride, row);
  }
  const auto bytes = static_cast<std::size_t>(layout.bytes());
  reorder_samples(layout, raster, bytes);
  if (layout.alpha_if_any && !any_alpha(raster, bytes)) {
    d.image = without_alpha(d.image.get<Image>());
  }
  return d;
}

// Where two images' samples or two files' bytes first differ ("" where they do not): a short
// message for a failed check, where Catch would print every byte of both (megabytes, for minutes).
template <typename Sample>
std::string first_difference(const std::vector<Sample>& a, const std::vector<Sample>& b) {
  if (a.size() != b.size()) {
    return "sizes " + std::to_string(a.size()) + " and " + std::to_string(b.size());
  }
  const auto at = std::mismatch(a.begin(), a.end(), b.begin());
  if (at.first == a.end()) return "";
  return "at " + std::to_string(at.first - a.begin()) + ": " + std::to_string(+*at.first) +
         " and " + std::to_string(+*at.second);
}

inline Bytes written(const RawFile& file) {
  Bytes bytes;
  for (const ByteSpan& piece : file.pieces())
    bytes.insert(bytes.end(), piece.data, piece.data + piece.size);
  return bytes;
}

// A BMP as another writer makes it, of `image`'s pixels (3 channels for 24 bits, 4 for 32).
struct BmpSpec {
  std::uint32_t dib = 40;  // 12 (OS/2), 40 (masks, if any, after it), 52, 56, 108, 124
  int bpp = 24;
  bool top_down = false;  // a negative height
  std::uint32_t compression = 0;
  std::vector<std::uint32_t> masks;  // after a 40-byte header, else inside the header
  std::int32_t x_ppm = 2835, y_ppm = 2835;
  std::size_t gap = 0;          // bytes between the headers and the rows (a palette, a profile)
  std::uint8_t padding = 0xee;  // of each row: not 0, so that a reader that keeps it shows
  std::size_t trailing = 0;     // bytes after the rows
};

inline Bytes bmp_as_written(const BmpSpec& s, const Image& image) {
  const bool core = s.dib == 12;
  const std::size_t after = s.dib == 40 ? 4 * s.masks.size() : 0;
  const auto offset = static_cast<std::uint32_t>(14 + s.dib + after + s.gap);
  const auto w = static_cast<std::size_t>(image.width), h = static_cast<std::size_t>(image.height);
  const std::size_t pixel = static_cast<std::size_t>(s.bpp) / 8, stride = (w * pixel + 3) / 4 * 4;
  Bytes b = {'B', 'M'};
  put32le(b, static_cast<std::uint32_t>(offset + stride * h + s.trailing));
  put32le(b, 0);
  put32le(b, offset);
  put32le(b, s.dib);
  const auto height = static_cast<std::uint32_t>(s.top_down ? -static_cast<std::int64_t>(h)
                                                              : static_cast<std::int64_t>(h));
  if (core) {
    put16le(b, static_cast<unsigned>(w)), put16le(b, static_cast<unsigned>(h));
    put16le(b, 1), put16le(b, static_cast<unsigned>(s.bpp));
  } else {
    put32le(b, static_cast<std::uint32_t>(w)), put32le(b, height);
    put16le(b, 1), put16le(b, static_cast<unsigned>(s.bpp));
    put32le(b, s.compression);
    put32le(b, static_cast<std::uint32_t>(stride * h));
    put32le(b, static_cast<std::uint32_t>(s.x_ppm));
    put32le(b, static_cast<std::uint32_t>(s.y_ppm));
    put32le(b, 0), put32le(b, 0);
    for (std::uint32_t m : s.masks) put32le(b, m);
    b.resize(14 + s.dib + after, 0);  // the rest of a larger header: colour space, endpoints
  }
  b.resize(offset, 0x55);
  const auto c = static_cast<std::size_t>(image.channels);
  for (std::size_t i = 0; i < h; ++i) {
    const std::uint8_t* p = image.pixels.data() + (s.top_down ? i : h - 1 - i) * w * c;
    for (std::size_t x = 0; x < w; ++x, p += c) {
      b.insert(b.end(), {p[2], p[1], p[0]});
      if (pixel == 4) b.push_back(c == 4 ? p[3] : 0);
    }
    b.resize(b.size() + stride - w * pixel, s.padding);
  }
  b.resize(b.size() + s.trailing, 0x77);
  return b;
}

}  // namespace gpublur::test
