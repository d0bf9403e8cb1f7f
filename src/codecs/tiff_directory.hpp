// tiff_directory.hpp — TIFF's image file directories (IFDs) read from and written into bytes, in
// either byte order. EXIF is such a structure; TIFF files keep their EXIF as directories of this
// kind (exif_tiff.hpp). Only classic TIFF (32-bit offsets), which is what EXIF and gpublur's TIFF
// output use.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

namespace gpublur::tiff {

enum class ByteOrder { kLittle, kBig };

/// One directory entry: `count` values of `type`.
struct Entry {
  std::uint16_t tag = 0;
  std::uint16_t type = 0;
  std::uint32_t count = 0;
  std::vector<std::uint8_t> value;  // count values of `type`, in the directory's byte order
  // An entry kept in place: its 4-byte value field (the value itself, or the offset of a value
  // that stays where it is in the same file), written back verbatim; `value` is then unused.
  std::optional<std::array<std::uint8_t, 4>> field;
};

struct Directory {
  std::vector<Entry> entries;
  std::uint32_t next = 0;   // the offset of the next directory; 0: none
  std::size_t outside = 0;  // entries dropped because their values lie outside the data
};

/// Bytes per value of a TIFF field type (1 BYTE ... 13 IFD); 0 for a type TIFF does not define.
std::size_t type_size(std::uint16_t type);

std::uint16_t get16(const std::uint8_t* p, ByteOrder order);
std::uint32_t get32(const std::uint8_t* p, ByteOrder order);
void put16(std::vector<std::uint8_t>& out, std::uint16_t v, ByteOrder order);
void put32(std::vector<std::uint8_t>& out, std::uint32_t v, ByteOrder order);
void set32(std::vector<std::uint8_t>& out, std::size_t at, std::uint32_t v, ByteOrder order);

/// A classic TIFF header's byte order and first directory's offset; nullopt for anything else
/// (BigTIFF included).
struct Header {
  ByteOrder order = ByteOrder::kLittle;
  std::uint32_t first = 0;
};
std::optional<Header> read_header(const std::uint8_t* data, std::size_t size);
/// A classic header whose first-directory offset is 0 (set later with set32 at 4).
std::vector<std::uint8_t> header_bytes(ByteOrder order);

/// The directory at `offset` in `data`, or nullopt when its entry table does not fit in the data.
/// Entries of undefined types or whose values lie outside the data are dropped: what remains is
/// what can be read. With `in_place`, entries also keep their value fields (Entry::field).
/// `data` is the file's bytes from offset `base` on (the part of a file that holds the directory:
/// tiff_frame's tail); offsets are the file's.
std::optional<Directory> read_directory(const std::uint8_t* data, std::size_t size, ByteOrder order,
                                        std::uint32_t offset, bool in_place,
                                        std::uint32_t base = 0);

/// An entry's values converted from one byte order to the other, element by element (RATIONALs
/// as their two LONGs; BYTE, ASCII and UNDEFINED as they are).
void swap_byte_order(Entry& entry);

/// Appends a directory of `entries` (sorted by tag here, as TIFF requires) at the next even
/// offset of `out`, followed by the values longer than 4 bytes, each at an even offset. Returns the
/// directory's offset; `value_fields`, when given, receives each tag's value field offset (for a
/// pointer to a directory written afterwards). Throws IoError past 4 GiB. `out` is the file's bytes
/// from offset `base` on: the offsets written and returned are the file's, `value_fields` `out`'s.
std::uint32_t append_directory(std::vector<std::uint8_t>& out, std::vector<Entry> entries,
                               ByteOrder order,
                               std::map<std::uint16_t, std::size_t>* value_fields = nullptr,
                               std::uint32_t base = 0);

}  // namespace gpublur::tiff
