// exif_tiff.cpp — EXIF's tags between a block and a TIFF file's directories.
#include "codecs/exif_tiff.hpp"

#include <algorithm>
#include <map>
#include <optional>

#include "codecs/tiff_directory.hpp"

namespace gpublur {
namespace {

using tiff::ByteOrder;
using tiff::Entry;

constexpr std::uint16_t kExifPointer = 34665;
constexpr std::uint16_t kGpsPointer = 34853;
constexpr std::uint16_t kInteropPointer = 40965;
constexpr std::uint16_t kOrientation = 274;
constexpr std::uint16_t kTypeLong = 4;
constexpr std::uint16_t kTypeIfd = 13;

// The tags of EXIF's first directory that describe the picture (EXIF 2.3, table 4:
// ImageDescription, Make, Model, Orientation, TransferFunction, Software, DateTime, Artist,
// WhitePoint, PrimaryChromaticities, Copyright) rather than the layout of its data.
constexpr std::uint16_t kCameraTags[] = {270, 271, 272, 274, 301, 305, 306, 315, 318, 319, 33432};

bool is_camera_tag(std::uint16_t tag) {
  return std::find(std::begin(kCameraTags), std::end(kCameraTags), tag) != std::end(kCameraTags);
}

struct ExifTags {
  ByteOrder order = ByteOrder::kLittle;
  std::vector<Entry> camera, exif, interop, gps;
  bool thumbnail = false;  // a second directory (EXIF's thumbnail)

  bool empty() const { return camera.empty() && exif.empty() && interop.empty() && gps.empty(); }
};

std::optional<std::uint32_t> pointer_of(const Entry& e, ByteOrder order) {
  if ((e.type == kTypeLong || e.type == kTypeIfd) && e.count == 1 && e.value.size() == 4)
    return tiff::get32(e.value.data(), order);
  return std::nullopt;
}

// The directory `pointer` points to, without entries that point further (their offsets would
// not survive the move); empty when it cannot be read.
std::vector<Entry> directory_at(const std::uint8_t* data, std::size_t size, ByteOrder order,
                                const Entry& pointer, std::uint16_t keep_pointer = 0) {
  const std::optional<std::uint32_t> at = pointer_of(pointer, order);
  if (!at) return {};
  std::optional<tiff::Directory> dir = tiff::read_directory(data, size, order, *at, false);
  if (!dir) return {};
  std::vector<Entry> entries;
  for (Entry& e : dir->entries) {
    if (e.type != kTypeIfd || e.tag == keep_pointer) entries.push_back(std::move(e));
  }
  return entries;
}

// EXIF's tags in `data` (a block, or a whole TIFF file: `tiff_file`, whose Orientation 1 is only
// the default and whose second directory is another image, not a thumbnail).
std::optional<ExifTags> read_tags(const std::uint8_t* data, std::size_t size, bool tiff_file) {
  const std::optional<tiff::Header> header = tiff::read_header(data, size);
  if (!header) return std::nullopt;
  const std::optional<tiff::Directory> first =
      tiff::read_directory(data, size, header->order, header->first, false);
  if (!first) return std::nullopt;
  ExifTags t;
  t.order = header->order;
  t.thumbnail = !tiff_file && first->next != 0;
  for (const Entry& e : first->entries) {
    if (e.tag == kExifPointer) {
      t.exif = directory_at(data, size, t.order, e, kInteropPointer);
    } else if (e.tag == kGpsPointer) {
      t.gps = directory_at(data, size, t.order, e);
    } else if (is_camera_tag(e.tag)) {
      const bool default_orientation = e.tag == kOrientation && e.count == 1 &&
                                       e.value.size() == 2 &&
                                       tiff::get16(e.value.data(), t.order) == 1;
      if (!(tiff_file && default_orientation)) t.camera.push_back(e);
    }
  }
  const auto interop = std::find_if(t.exif.begin(), t.exif.end(),
                                    [](const Entry& e) { return e.tag == kInteropPointer; });
  if (interop != t.exif.end()) {
    t.interop = directory_at(data, size, t.order, *interop);
    t.exif.erase(interop);
  }
  return t;
}

Entry pointer_entry(std::uint16_t tag) { return Entry{tag, kTypeLong, 1, {0, 0, 0, 0}, {}}; }

bool has_tag(const std::vector<Entry>& entries, std::uint16_t tag) {
  return std::any_of(entries.begin(), entries.end(), [&](const Entry& e) { return e.tag == tag; });
}

// Appends `t`'s directories to `out` (a file's bytes from offset `at` on) in `order`: first the
// first directory (`base`'s entries, `t`'s camera tags in place of base's own, pointers to the
// rest), then the EXIF, interoperability and GPS directories. Returns the first directory's offset.
std::uint32_t append_tags(std::vector<std::uint8_t>& out, ExifTags t,
                          const std::vector<Entry>& base, ByteOrder order, std::uint32_t at = 0) {
  if (t.order != order) {
    for (std::vector<Entry>* list : {&t.camera, &t.exif, &t.interop, &t.gps}) {
      for (Entry& e : *list) tiff::swap_byte_order(e);
    }
  }
  std::vector<Entry> first;
  for (const Entry& e : base) {
    if (!has_tag(t.camera, e.tag) && e.tag != kExifPointer && e.tag != kGpsPointer)
      first.push_back(e);
  }
  first.insert(first.end(), t.camera.begin(), t.camera.end());
  const bool exif = !t.exif.empty() || !t.interop.empty();
  if (exif) first.push_back(pointer_entry(kExifPointer));
  if (!t.gps.empty()) first.push_back(pointer_entry(kGpsPointer));
  std::map<std::uint16_t, std::size_t> first_fields;
  const std::uint32_t first_at = tiff::append_directory(out, first, order, &first_fields, at);
  if (exif) {
    if (!t.interop.empty()) t.exif.push_back(pointer_entry(kInteropPointer));
    std::map<std::uint16_t, std::size_t> exif_fields;
    tiff::set32(out, first_fields[kExifPointer],
                tiff::append_directory(out, t.exif, order, &exif_fields, at), order);
    if (!t.interop.empty()) {
      tiff::set32(out, exif_fields[kInteropPointer],
                  tiff::append_directory(out, t.interop, order, nullptr, at), order);
    }
  }
  if (!t.gps.empty()) {
    tiff::set32(out, first_fields[kGpsPointer],
                tiff::append_directory(out, t.gps, order, nullptr, at), order);
  }
  return first_at;
}

}  // namespace

std::vector<std::uint8_t> exif_from_tiff(const std::uint8_t* file, std::size_t size) {
  const std::optional<ExifTags> tags = read_tags(file, size, true);
  if (!tags || tags->empty()) return {};
  std::vector<std::uint8_t> block = tiff::header_bytes(tags->order);
  tiff::set32(block, 4, append_tags(block, *tags, {}, tags->order), tags->order);
  return block;
}

void add_exif_to_tiff(std::vector<std::uint8_t>& tiff, const std::vector<std::uint8_t>& exif) {
  const std::optional<ExifTags> tags = read_tags(exif.data(), exif.size(), false);
  const std::optional<tiff::Header> header = tiff::read_header(tiff.data(), tiff.size());
  if (!tags || tags->empty() || !header) return;
  const std::optional<tiff::Directory> first =
      tiff::read_directory(tiff.data(), tiff.size(), header->order, header->first, true);
  if (!first) return;
  const std::uint32_t at = append_tags(tiff, *tags, first->entries, header->order);
  tiff::set32(tiff, 4, at, header->order);
}

bool add_exif_to_tiff_tail(std::vector<std::uint8_t>& header, std::vector<std::uint8_t>& tail,
                           std::uint32_t at, const std::vector<std::uint8_t>& exif) {
  const std::optional<ExifTags> tags = read_tags(exif.data(), exif.size(), false);
  const std::optional<tiff::Header> h = tiff::read_header(header.data(), header.size());
  if (!tags || tags->empty() || !h) return true;  // as add_exif_to_tiff: nothing added
  // Where the directory or a value of it lay before `at`, add_exif_to_tiff would read it there.
  if (h->first < at) return false;
  const std::optional<tiff::Directory> first =
      tiff::read_directory(tail.data(), tail.size(), h->order, h->first, true, at);
  if (!first) return true;
  if (first->outside > 0) return false;
  tiff::set32(header, 4, append_tags(tail, *tags, first->entries, h->order, at), h->order);
  return true;
}

std::vector<std::string> what_tiff_drops(const std::vector<std::uint8_t>& exif) {
  const std::optional<ExifTags> tags = read_tags(exif.data(), exif.size(), false);
  if (!tags) return {"EXIF (unreadable)"};
  if (tags->thumbnail) return {"EXIF thumbnail"};
  return {};
}

}  // namespace gpublur
