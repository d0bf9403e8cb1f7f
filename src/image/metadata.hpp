// metadata.hpp — what an image file says about its pixels besides their values: the ICC colour
// profile, EXIF (camera, orientation, ...) and the pixel density. A blur changes no geometry, so
// all of it stays valid and is copied to the output unchanged where the output's format can hold
// it (image_format.hpp's traits); what cannot be kept is named for --verbose.
#pragma once

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
  std::optional<Density> density;

  bool empty() const { return icc.empty() && exif.empty() && !density; }
};

/// Whether `bytes` start as EXIF's TIFF structure does (little- or big-endian).
inline bool looks_like_exif(const std::vector<std::uint8_t>& bytes) {
  return bytes.size() >= 8 &&
         ((bytes[0] == 'I' && bytes[1] == 'I' && bytes[2] == 42 && bytes[3] == 0) ||
          (bytes[0] == 'M' && bytes[1] == 'M' && bytes[2] == 0 && bytes[3] == 42));
}

}  // namespace gpublur
