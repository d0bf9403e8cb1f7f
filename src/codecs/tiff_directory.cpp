// tiff_directory.cpp — reading and writing TIFF directories, bounds-checked against the bytes.
#include "codecs/tiff_directory.hpp"

#include <algorithm>
#include <string>

#include "base/errors.hpp"

namespace gpublur::tiff {
namespace {

// A directory of more entries than this is damaged: TIFF and EXIF define a few hundred tags.
constexpr std::uint32_t kMaxEntries = 4096;
constexpr std::size_t kEntryBytes = 12;

// (`out` is a file's bytes from `base` on: evenness is the file's.)
void pad_to_even(std::vector<std::uint8_t>& out, std::uint32_t base) {
  if ((base + out.size()) % 2 != 0) out.push_back(0);
}

std::uint32_t offset_of(const std::vector<std::uint8_t>& out, std::uint32_t base) {
  if (base + std::uint64_t{out.size()} > 0xffffffffu)
    throw IoError("TIFF directories past 4 GiB: not supported");
  return static_cast<std::uint32_t>(base + out.size());
}

}  // namespace

std::size_t type_size(std::uint16_t type) {
  switch (type) {
    case 1:
    case 2:
    case 6:
    case 7:
      return 1;  // BYTE, ASCII, SBYTE, UNDEFINED
    case 3:
    case 8:
      return 2;  // SHORT, SSHORT
    case 4:
    case 9:
    case 11:
    case 13:
      return 4;  // LONG, SLONG, FLOAT, IFD
    case 5:
    case 10:
    case 12:
      return 8;  // RATIONAL, SRATIONAL, DOUBLE
    default:
      return 0;
  }
}

std::uint16_t get16(const std::uint8_t* p, ByteOrder order) {
  return order == ByteOrder::kLittle ? static_cast<std::uint16_t>(p[0] | p[1] << 8)
                                     : static_cast<std::uint16_t>(p[0] << 8 | p[1]);
}

std::uint32_t get32(const std::uint8_t* p, ByteOrder order) {
  const std::uint32_t hi = get16(order == ByteOrder::kLittle ? p + 2 : p, order);
  const std::uint32_t lo = get16(order == ByteOrder::kLittle ? p : p + 2, order);
  return hi << 16 | lo;
}

void put16(std::vector<std::uint8_t>& out, std::uint16_t v, ByteOrder order) {
  const auto hi = static_cast<std::uint8_t>(v >> 8), lo = static_cast<std::uint8_t>(v);
  out.push_back(order == ByteOrder::kLittle ? lo : hi);
  out.push_back(order == ByteOrder::kLittle ? hi : lo);
}

void put32(std::vector<std::uint8_t>& out, std::uint32_t v, ByteOrder order) {
  const auto hi = static_cast<std::uint16_t>(v >> 16), lo = static_cast<std::uint16_t>(v);
  put16(out, order == ByteOrder::kLittle ? lo : hi, order);
  put16(out, order == ByteOrder::kLittle ? hi : lo, order);
}

void set32(std::vector<std::uint8_t>& out, std::size_t at, std::uint32_t v, ByteOrder order) {
  std::vector<std::uint8_t> bytes;
  put32(bytes, v, order);
  std::copy(bytes.begin(), bytes.end(), out.begin() + static_cast<std::ptrdiff_t>(at));
}

std::optional<Header> read_header(const std::uint8_t* data, std::size_t size) {
  if (size < 8) return std::nullopt;
  Header h;
  if (data[0] == 'I' && data[1] == 'I') {
    h.order = ByteOrder::kLittle;
  } else if (data[0] == 'M' && data[1] == 'M') {
    h.order = ByteOrder::kBig;
  } else {
    return std::nullopt;
  }
  if (get16(data + 2, h.order) != 42) return std::nullopt;
  h.first = get32(data + 4, h.order);
  return h;
}

std::vector<std::uint8_t> header_bytes(ByteOrder order) {
  std::vector<std::uint8_t> out;
  const std::uint8_t mark = order == ByteOrder::kLittle ? 'I' : 'M';
  out.push_back(mark), out.push_back(mark);
  put16(out, 42, order);
  put32(out, 0, order);
  return out;
}

std::optional<Directory> read_directory(const std::uint8_t* data, std::size_t size, ByteOrder order,
                                        std::uint32_t offset, bool in_place, std::uint32_t base) {
  if (offset < 8 || offset < base || size < 2 || offset - base > size - 2) return std::nullopt;
  const std::uint32_t count = get16(data + (offset - base), order);
  const std::size_t table = std::size_t{offset - base} + 2;
  if (count > kMaxEntries || table + count * kEntryBytes + 4 > size) return std::nullopt;
  Directory dir;
  dir.next = get32(data + table + count * kEntryBytes, order);
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint8_t* e = data + table + i * kEntryBytes;
    Entry entry;
    entry.tag = get16(e, order);
    entry.type = get16(e + 2, order);
    entry.count = get32(e + 4, order);
    const std::size_t element = type_size(entry.type);
    if (element == 0) continue;
    const std::uint64_t bytes = std::uint64_t{entry.count} * element;
    if (bytes <= 4) {
      entry.value.assign(e + 8, e + 8 + bytes);
    } else {
      const std::uint32_t at = get32(e + 8, order);
      if (at < base || at - base > size || bytes > size - (at - base)) {
        ++dir.outside;
        continue;
      }
      entry.value.assign(data + (at - base), data + (at - base) + bytes);
    }
    if (in_place) entry.field = std::array<std::uint8_t, 4>{e[8], e[9], e[10], e[11]};
    dir.entries.push_back(std::move(entry));
  }
  return dir;
}

void swap_byte_order(Entry& entry) {
  const std::size_t element = type_size(entry.type);
  // RATIONALs are two LONGs; every other element swaps whole.
  const std::size_t word = entry.type == 5 || entry.type == 10 ? 4 : element;
  if (word <= 1) return;
  for (std::size_t at = 0; at + word <= entry.value.size(); at += word) {
    std::reverse(entry.value.begin() + static_cast<std::ptrdiff_t>(at),
                 entry.value.begin() + static_cast<std::ptrdiff_t>(at + word));
  }
}

std::uint32_t append_directory(std::vector<std::uint8_t>& out, std::vector<Entry> entries,
                               ByteOrder order, std::map<std::uint16_t, std::size_t>* value_fields,
                               std::uint32_t base) {
  std::stable_sort(entries.begin(), entries.end(),
                   [](const Entry& a, const Entry& b) { return a.tag < b.tag; });
  pad_to_even(out, base);
  const std::uint32_t start = offset_of(out, base);
  put16(out, static_cast<std::uint16_t>(entries.size()), order);
  std::vector<std::size_t> field_at;
  for (const Entry& e : entries) {
    put16(out, e.tag, order);
    put16(out, e.type, order);
    put32(out, e.count, order);
    field_at.push_back(out.size());
    if (value_fields) (*value_fields)[e.tag] = out.size();
    if (e.field) {
      out.insert(out.end(), e.field->begin(), e.field->end());
    } else {
      std::array<std::uint8_t, 4> inline_value{};
      if (e.value.size() <= 4) std::copy(e.value.begin(), e.value.end(), inline_value.begin());
      out.insert(out.end(), inline_value.begin(), inline_value.end());
    }
  }
  put32(out, 0, order);  // no next directory
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const Entry& e = entries[i];
    if (e.field || e.value.size() <= 4) continue;
    pad_to_even(out, base);
    set32(out, field_at[i], offset_of(out, base), order);
    out.insert(out.end(), e.value.begin(), e.value.end());
    offset_of(out, base);
  }
  return start;
}

}  // namespace gpublur::tiff
