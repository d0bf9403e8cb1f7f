// jpeg_markers.cpp — JFIF, EXIF and ICC segments as libjpeg-turbo's jcmarker.c and
// jpeg_write_icc_profile lay them out (tests/jpeg_markers_test.cpp holds the two to the byte).
#include "codecs/jpeg_markers.hpp"

#include <algorithm>
#include <cstring>

#include "base/errors.hpp"

namespace gpublur {
namespace {

constexpr std::uint8_t kMarker = 0xFF;
constexpr std::uint8_t kSoi = 0xD8;
constexpr std::uint8_t kApp0 = 0xE0;
constexpr std::uint8_t kApp15 = 0xEF;
constexpr std::uint8_t kCom = 0xFE;
// A segment's length field counts itself: at most 65,533 bytes of content.
constexpr std::size_t kMaxSegmentContent = 65533;
constexpr char kExifHeader[] = "Exif\0";      // "Exif\0\0": 6 bytes with the final NUL
constexpr char kIccHeader[] = "ICC_PROFILE";  // 12 bytes with its NUL
constexpr std::size_t kIccOverhead = sizeof kIccHeader + 2;  // + sequence number, count
constexpr std::size_t kIccChunk = kMaxSegmentContent - kIccOverhead;

void put16(std::vector<std::uint8_t>& out, std::size_t v) {
  out.push_back(static_cast<std::uint8_t>(v >> 8));
  out.push_back(static_cast<std::uint8_t>(v & 0xFF));
}

// Marker and length; the caller appends `content` bytes.
void segment_header(std::vector<std::uint8_t>& out, std::uint8_t marker, std::size_t content) {
  out.push_back(kMarker);
  out.push_back(marker);
  put16(out, content + 2);
}

void append(std::vector<std::uint8_t>& out, const void* bytes, std::size_t size) {
  const auto* p = static_cast<const std::uint8_t*>(bytes);
  out.insert(out.end(), p, p + size);
}

// As jpeg_codec's set_density gives libjpeg: a density it can hold, else JFIF's 1:1.
void jfif(std::vector<std::uint8_t>& out, const std::optional<Density>& density) {
  std::uint8_t unit = 0;
  std::size_t x = 1, y = 1;
  if (density && density->x >= 1 && density->y >= 1 && density->x <= 65535 && density->y <= 65535) {
    unit = density->unit == Density::Unit::kInch         ? 1
           : density->unit == Density::Unit::kCentimetre ? 2
                                                         : 0;
    x = static_cast<std::size_t>(density->x + 0.5);
    y = static_cast<std::size_t>(density->y + 0.5);
  }
  segment_header(out, kApp0, 14);
  append(out, "JFIF", 5);  // with its NUL
  out.push_back(1);        // version 1.01
  out.push_back(1);
  out.push_back(unit);
  put16(out, x);
  put16(out, y);
  out.push_back(0);  // no thumbnail
  out.push_back(0);
}

}  // namespace

std::vector<std::uint8_t> jpeg_metadata_segments(const Metadata& metadata) {
  std::vector<std::uint8_t> out;
  jfif(out, metadata.density);
  const std::size_t exif_header = sizeof kExifHeader;  // 6
  if (!metadata.exif.empty() && metadata.exif.size() <= kMaxSegmentContent - exif_header) {
    segment_header(out, kApp0 + 1, exif_header + metadata.exif.size());
    append(out, kExifHeader, exif_header);
    append(out, metadata.exif.data(), metadata.exif.size());
  }
  if (!metadata.xmp.empty() && metadata.xmp.size() <= kMaxJpegXmpBytes) {
    segment_header(out, kApp0 + 1, sizeof kJpegXmpHeader + metadata.xmp.size());
    append(out, kJpegXmpHeader, sizeof kJpegXmpHeader);
    append(out, metadata.xmp.data(), metadata.xmp.size());
  }
  const std::size_t icc = icc_to_write(metadata) ? metadata.icc.size() : 0;
  const std::size_t chunks = (icc + kIccChunk - 1) / kIccChunk;
  for (std::size_t i = 0, offset = 0; i < chunks; ++i) {
    const std::size_t n = std::min(kIccChunk, icc - offset);
    segment_header(out, kApp0 + 2, kIccOverhead + n);
    append(out, kIccHeader, sizeof kIccHeader);
    out.push_back(static_cast<std::uint8_t>(i + 1));
    out.push_back(static_cast<std::uint8_t>(chunks));
    append(out, metadata.icc.data() + offset, n);
    offset += n;
  }
  return out;
}

std::vector<std::uint8_t> with_jpeg_metadata(const std::vector<std::uint8_t>& jpeg,
                                             const Metadata& metadata) {
  if (jpeg.size() < 2 || jpeg[0] != kMarker || jpeg[1] != kSoi)
    throw IoError("JPEG from the encoder does not start with SOI");
  std::size_t at = 2;
  while (at + 4 <= jpeg.size() && jpeg[at] == kMarker &&
         ((jpeg[at + 1] >= kApp0 && jpeg[at + 1] <= kApp15) || jpeg[at + 1] == kCom)) {
    const std::size_t length = std::size_t{jpeg[at + 2]} << 8 | jpeg[at + 3];
    if (length < 2 || at + 2 + length > jpeg.size())
      throw IoError("JPEG from the encoder has a segment that runs past its end");
    at += 2 + length;
  }
  std::vector<std::uint8_t> out(jpeg.begin(), jpeg.begin() + 2);
  const std::vector<std::uint8_t> segments = jpeg_metadata_segments(metadata);
  out.reserve(jpeg.size() - at + 2 + segments.size());
  append(out, segments.data(), segments.size());
  out.insert(out.end(), jpeg.begin() + static_cast<std::ptrdiff_t>(at), jpeg.end());
  return out;
}

}  // namespace gpublur
