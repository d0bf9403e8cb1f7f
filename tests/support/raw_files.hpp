// raw_files.hpp — test support: the raw route's two halves on files in memory, without the batch's
// threads and descriptors: what a reader of a raw layout makes of a file (each stored row into its
// raster row, reordered, alpha dropped where no pixel has any), a raw file's bytes in one piece,
// and BMP and TIFF files as other writers make them.
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
    std::memcpy(raster + layout.raster_row(i) * row, file.data() + layout.row_offset(i), row);
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

// An uncompressed TIFF as another writer makes it, of `image`'s samples (written field by field
// here, not by libtiff or gpublur's directory code), its tags as asked.
struct TiffSpec {
  bool big = false;        // Motorola byte order
  int rows_per_strip = 2;  // the last strip holds what is left
  bool reversed = false;   // strips stored last first
  std::size_t gap = 0;     // bytes (0x55) before each strip
  int photometric = -1;    // -1: RGB for 3 or 4 channels, min-is-black for 1 or 2; -2: no tag
  int extra = 2;           // ExtraSamples of an alpha channel (2 unassociated); -1: no tag
  int compression = 1, planar = 1;
  int fill_order = 0, sample_format = 0, orientation = 0;  // 0: no tag
  std::int64_t last_count_delta = 0;                       // added to the last strip's byte count
  std::int64_t first_offset_delta = 0;                     // added to the first strip's offset
  bool tiled = false;                                      // one 16x16 tile (the image no larger)
  Bytes icc;                                               // empty: no tag
  std::uint32_t x_dpi = 0;  // and y_dpi: XResolution, YResolution, inches (0: no tags)
  std::uint32_t y_dpi = 0;
};

template <typename Sample>
Bytes tiff_as_written(const TiffSpec& s, const Raster<Sample>& image) {
  const auto p16 = [&](Bytes& b, unsigned v) { s.big ? put16be(b, v) : put16le(b, v); };
  const auto p32 = [&](Bytes& b, std::uint32_t v) { s.big ? put32be(b, v) : put32le(b, v); };
  const auto w = static_cast<std::size_t>(image.width), h = static_cast<std::size_t>(image.height);
  const auto c = static_cast<std::size_t>(image.channels);
  const std::size_t rps = s.tiled ? 16 : static_cast<std::size_t>(s.rows_per_strip);
  const std::size_t strips = s.tiled ? 1 : (h + rps - 1) / rps;
  const auto sample = [&](Bytes& b, std::size_t at) {
    const auto v = static_cast<unsigned>(at < image.pixels.size() ? image.pixels[at] : 0);
    if (sizeof(Sample) == 1) {
      b.push_back(static_cast<std::uint8_t>(v));
    } else {
      p16(b, v);
    }
  };
  Bytes b = s.big ? Bytes{'M', 'M', 0, 42, 0, 0, 0, 0} : Bytes{'I', 'I', 42, 0, 0, 0, 0, 0};
  std::vector<std::uint32_t> offsets(strips), counts(strips);
  for (std::size_t k = 0; k < strips; ++k) {
    const std::size_t strip = s.reversed ? strips - 1 - k : k;
    b.resize(b.size() + s.gap, 0x55);
    offsets[strip] = static_cast<std::uint32_t>(b.size());
    if (s.tiled) {  // 16x16 pixels, the image in its top left corner
      for (std::size_t y = 0; y < 16; ++y)
        for (std::size_t x = 0; x < 16 * c; ++x)
          sample(b, y < h && x < w * c ? y * w * c + x : image.pixels.size());
    } else {
      const std::size_t first = strip * rps, rows = std::min(rps, h - first);
      for (std::size_t i = first * w * c; i < (first + rows) * w * c; ++i) sample(b, i);
    }
    counts[strip] = static_cast<std::uint32_t>(b.size()) - offsets[strip];
  }
  counts.back() = static_cast<std::uint32_t>(counts.back() + s.last_count_delta);
  offsets.front() = static_cast<std::uint32_t>(offsets.front() + s.first_offset_delta);
  struct Tag {
    unsigned tag, type;
    std::uint32_t count;
    Bytes value;  // in the file's byte order
  };
  const auto shorts = [&](std::vector<unsigned> v) {
    Bytes out;
    for (unsigned x : v) p16(out, x);
    return out;
  };
  const auto longs = [&](const std::vector<std::uint32_t>& v) {
    Bytes out;
    for (std::uint32_t x : v) p32(out, x);
    return out;
  };
  const auto n = static_cast<std::uint32_t>(strips);
  const bool alpha = c == 2 || c == 4;
  std::vector<Tag> tags = {
      {256, 4, 1, longs({static_cast<std::uint32_t>(w)})},
      {257, 4, 1, longs({static_cast<std::uint32_t>(h)})},
      {258, 3, static_cast<std::uint32_t>(c), shorts(std::vector<unsigned>(c, 8 * sizeof(Sample)))},
      {259, 3, 1, shorts({static_cast<unsigned>(s.compression)})},
      {277, 3, 1, shorts({static_cast<unsigned>(c)})},
      {284, 3, 1, shorts({static_cast<unsigned>(s.planar)})}};
  if (s.tiled) {
    tags.push_back({322, 3, 1, shorts({16})});
    tags.push_back({323, 3, 1, shorts({16})});
    tags.push_back({324, 4, n, longs(offsets)});
    tags.push_back({325, 4, n, longs(counts)});
  } else {
    tags.push_back({273, 4, n, longs(offsets)});
    tags.push_back({278, 4, 1, longs({static_cast<std::uint32_t>(rps)})});
    tags.push_back({279, 4, n, longs(counts)});
  }
  if (s.photometric != -2)
    tags.push_back({262, 3, 1,
                    shorts({s.photometric >= 0 ? unsigned(s.photometric)
                            : c >= 3           ? 2u
                                               : 1u})});
  if (alpha && s.extra >= 0) tags.push_back({338, 3, 1, shorts({static_cast<unsigned>(s.extra)})});
  if (s.fill_order) tags.push_back({266, 3, 1, shorts({static_cast<unsigned>(s.fill_order)})});
  if (s.orientation) tags.push_back({274, 3, 1, shorts({static_cast<unsigned>(s.orientation)})});
  if (s.sample_format) {
    tags.push_back({339, 3, static_cast<std::uint32_t>(c),
                    shorts(std::vector<unsigned>(c, static_cast<unsigned>(s.sample_format)))});
  }
  if (!s.icc.empty()) tags.push_back({34675, 7, static_cast<std::uint32_t>(s.icc.size()), s.icc});
  if (s.x_dpi) {
    tags.push_back({282, 5, 1, longs({s.x_dpi, 1})});
    tags.push_back({283, 5, 1, longs({s.y_dpi, 1})});
    tags.push_back({296, 3, 1, shorts({2})});
  }
  std::sort(tags.begin(), tags.end(), [](const Tag& x, const Tag& y) { return x.tag < y.tag; });
  std::vector<std::uint32_t> fields;  // each tag's value field: inline, or where it is
  for (const Tag& t : tags) {
    if (t.value.size() <= 4) {
      Bytes field = t.value;
      field.resize(4, 0);
      std::uint32_t v = 0;
      std::memcpy(&v, field.data(), 4);
      fields.push_back(v);
      continue;
    }
    if (b.size() % 2) b.push_back(0);
    const auto at = static_cast<std::uint32_t>(b.size());
    Bytes offset;
    p32(offset, at);
    std::uint32_t v = 0;
    std::memcpy(&v, offset.data(), 4);
    fields.push_back(v);
    b.insert(b.end(), t.value.begin(), t.value.end());
  }
  if (b.size() % 2) b.push_back(0);
  Bytes ifd;
  p32(ifd, static_cast<std::uint32_t>(b.size()));
  std::copy(ifd.begin(), ifd.end(), b.begin() + 4);
  p16(b, static_cast<unsigned>(tags.size()));
  for (std::size_t i = 0; i < tags.size(); ++i) {
    p16(b, tags[i].tag), p16(b, tags[i].type), p32(b, tags[i].count);
    const auto* f = reinterpret_cast<const std::uint8_t*>(&fields[i]);
    b.insert(b.end(), f, f + 4);  // (already in the file's order)
  }
  p32(b, 0);  // no next directory
  return b;
}

}  // namespace gpublur::test
