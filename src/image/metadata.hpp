// metadata.hpp — what an image file says about its pixels besides their values: the ICC colour
// profile, EXIF (camera, orientation, ...), XMP (Adobe's XML: rights, captions, edit history) and
// the pixel density. A blur changes no geometry, so
// all of it stays valid and is copied to the output unchanged where the output's format can hold
// it (image_format.hpp's traits); what cannot be kept is named for --verbose.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpublur {

/// Pixels per unit along each axis, as the file stated them.
struct Density {
  enum class Unit { kNone, kInch, kCentimetre };  // kNone: only the aspect ratio is known
  double x = 0;
  double y = 0;
  Unit unit = Unit::kNone;

  friend bool operator==(const Density& a, const Density& b) {
    return a.x == b.x && a.y == b.y && a.unit == b.unit;
  }
};

struct Metadata {
  std::vector<std::uint8_t> icc;   // the ICC profile, as the file holds it (empty: none)
  std::vector<std::uint8_t> exif;  // EXIF's TIFF structure, from "II*\0" or "MM\0*" on (PNG's
                                   // eXIf; JPEG's APP1 without its "Exif\0\0")
  std::vector<std::uint8_t> xmp;   // the XMP packet (XML, UTF-8), as the file holds it (JPEG's
                                   // APP1 after its namespace; PNG's iTXt XML:com.adobe.xmp; TIFF's
                                   // tag 700; WebP's "XMP " chunk; PSD's resource 1060)
  std::optional<Density> density;

  bool empty() const { return icc.empty() && exif.empty() && xmp.empty() && !density; }
};

/// The largest ICC profile gpublur carries: what a JPEG holds (255 APP2 segments of 65,519 bytes;
/// a 256th would wrap the segments' 8-bit sequence numbers). A larger one is written to no output
/// (metadata_not_kept names it), so no format is given a profile another could not keep.
constexpr std::size_t kMaxIccBytes = 255 * std::size_t{65519};

/// Whether `metadata` has an ICC profile to write: one, no larger than kMaxIccBytes.
inline bool icc_to_write(const Metadata& metadata) {
  return !metadata.icc.empty() && metadata.icc.size() <= kMaxIccBytes;
}

/// Whether `bytes` start as EXIF's TIFF structure does (little- or big-endian).
inline bool looks_like_exif(const std::vector<std::uint8_t>& bytes) {
  return bytes.size() >= 8 &&
         ((bytes[0] == 'I' && bytes[1] == 'I' && bytes[2] == 42 && bytes[3] == 0) ||
          (bytes[0] == 'M' && bytes[1] == 'M' && bytes[2] == 0 && bytes[3] == 42));
}

}  // namespace gpublur
