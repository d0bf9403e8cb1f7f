// test_exif.hpp — test support: a camera's EXIF block written field by field, in either byte
// order, laid out as exif_tiff.hpp's canonical layout says (header; first directory and its
// values; EXIF, interoperability and GPS directories, each followed by its values; all at even
// offsets). Written here independently of gpublur's own TIFF directory code, so a test can hold
// that code to the layout.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gpublur::test {

class ExifWriter {
 public:
  struct Field {
    std::uint16_t tag, type;
    std::uint32_t count;
    std::vector<std::uint8_t> value;  // already in the block's byte order
  };

  explicit ExifWriter(bool big_endian) : big_(big_endian) {}

  std::vector<std::uint8_t> u16(std::uint16_t v) const {
    return big_ ? std::vector<std::uint8_t>{std::uint8_t(v >> 8), std::uint8_t(v)}
                : std::vector<std::uint8_t>{std::uint8_t(v), std::uint8_t(v >> 8)};
  }
  std::vector<std::uint8_t> u32(std::uint32_t v) const {
    std::vector<std::uint8_t> b(4);
    for (std::size_t i = 0; i < 4; ++i) b[big_ ? 3 - i : i] = std::uint8_t(v >> (8 * i));
    return b;
  }
  Field ascii(std::uint16_t tag, const std::string& s) const {
    std::vector<std::uint8_t> v(s.begin(), s.end());
    v.push_back(0);
    return {tag, 2, static_cast<std::uint32_t>(v.size()), v};
  }
  Field short1(std::uint16_t tag, std::uint16_t v) const { return {tag, 3, 1, u16(v)}; }
  Field rationals(std::uint16_t tag, const std::vector<std::uint32_t>& parts) const {
    std::vector<std::uint8_t> v;
    for (std::uint32_t p : parts) {
      const std::vector<std::uint8_t> b = u32(p);
      v.insert(v.end(), b.begin(), b.end());
    }
    return {tag, 5, static_cast<std::uint32_t>(parts.size() / 2), v};
  }
  Field undefined(std::uint16_t tag, const std::vector<std::uint8_t>& bytes) const {
    return {tag, 7, static_cast<std::uint32_t>(bytes.size()), bytes};
  }

  // The block: directories given in ascending tag order; a pointer field (34665, 34853, 40965)
  // is added for each non-empty sub-directory.
  std::vector<std::uint8_t> block(std::vector<Field> first, std::vector<Field> exif,
                                  const std::vector<Field>& interop, const std::vector<Field>& gps,
                                  bool thumbnail = false) const {
    std::vector<std::uint8_t> out = {std::uint8_t(big_ ? 'M' : 'I'),
                                     std::uint8_t(big_ ? 'M' : 'I')};
    append(out, u16(42));
    append(out, u32(8));
    const std::size_t exif_at = pointer(first, 34665, !exif.empty());
    const std::size_t gps_at = pointer(first, 34853, !gps.empty());
    const std::size_t interop_at = pointer(exif, 40965, !interop.empty());
    std::vector<std::size_t> first_fields;
    const std::size_t next_at = directory(out, first, first_fields);
    if (thumbnail) {
      // A second directory of one field, as a thumbnail's: JPEGInterchangeFormatLength 0.
      pad(out);
      patch(out, next_at, out.size());
      std::vector<std::size_t> ignored;
      directory(out, {{514, 4, 1, u32(0)}}, ignored);
    }
    std::vector<std::size_t> exif_fields;
    if (!exif.empty()) {
      pad(out);
      patch(out, first_fields[exif_at], out.size());
      directory(out, exif, exif_fields);
    }
    if (!interop.empty()) {
      pad(out);
      patch(out, exif_fields[interop_at], out.size());
      std::vector<std::size_t> ignored;
      directory(out, interop, ignored);
    }
    if (!gps.empty()) {
      pad(out);
      patch(out, first_fields[gps_at], out.size());
      std::vector<std::size_t> ignored;
      directory(out, gps, ignored);
    }
    return out;
  }

 private:
  static void append(std::vector<std::uint8_t>& out, const std::vector<std::uint8_t>& b) {
    out.insert(out.end(), b.begin(), b.end());
  }
  static void pad(std::vector<std::uint8_t>& out) {
    if (out.size() % 2) out.push_back(0);
  }
  void patch(std::vector<std::uint8_t>& out, std::size_t at, std::size_t v) const {
    const std::vector<std::uint8_t> b = u32(static_cast<std::uint32_t>(v));
    for (std::size_t i = 0; i < 4; ++i) out[at + i] = b[i];
  }
  // Inserts a LONG pointer field in tag order; returns its index.
  std::size_t pointer(std::vector<Field>& fields, std::uint16_t tag, bool wanted) const {
    if (!wanted) return 0;
    std::size_t i = 0;
    while (i < fields.size() && fields[i].tag < tag) ++i;
    fields.insert(fields.begin() + static_cast<long>(i), Field{tag, 4, 1, u32(0)});
    return i;
  }
  // Writes the directory and its long values; returns where its next-directory offset lies.
  std::size_t directory(std::vector<std::uint8_t>& out, const std::vector<Field>& fields,
                        std::vector<std::size_t>& value_fields) const {
    append(out, u16(static_cast<std::uint16_t>(fields.size())));
    for (const Field& f : fields) {
      append(out, u16(f.tag));
      append(out, u16(f.type));
      append(out, u32(f.count));
      value_fields.push_back(out.size());
      std::vector<std::uint8_t> inline_value(4, 0);
      if (f.value.size() <= 4) std::copy(f.value.begin(), f.value.end(), inline_value.begin());
      append(out, inline_value);
    }
    const std::size_t next_at = out.size();
    append(out, u32(0));
    for (std::size_t i = 0; i < fields.size(); ++i) {
      if (fields[i].value.size() <= 4) continue;
      pad(out);
      patch(out, value_fields[i], out.size());
      append(out, fields[i].value);
    }
    return next_at;
  }

  bool big_;
};

// A camera's block: Make, Model, Orientation 6, DateTime; exposure, aperture, ISO, the original
// date, a maker note; an interoperability index; a GPS position.
inline std::vector<std::uint8_t> camera_exif(bool big_endian, bool thumbnail = false) {
  const ExifWriter w(big_endian);
  std::vector<std::uint8_t> maker(37);
  for (std::size_t i = 0; i < maker.size(); ++i) maker[i] = static_cast<std::uint8_t>(i * 7 + 1);
  return w.block({w.ascii(271, "Gpublur Optics"), w.ascii(272, "Test Camera X"), w.short1(274, 6),
                  w.ascii(306, "2026:11:23 12:34:56")},
                 {w.rationals(33434, {1, 250}), w.rationals(33437, {28, 10}), w.short1(34855, 400),
                  w.ascii(36867, "2026:11:23 12:34:56"), w.undefined(37500, maker)},
                 {w.ascii(1, "R98")}, {w.ascii(1, "N"), w.rationals(2, {52, 1, 31, 1, 1234, 100})},
                 thumbnail);
}

}  // namespace gpublur::test
