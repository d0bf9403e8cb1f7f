// exif_tiff.hpp — EXIF in TIFF files. JPEG, PNG and WebP hold EXIF as one block (a small TIFF
// structure) that gpublur copies byte for byte; a TIFF file holds the same tags as directories of
// its own: the camera's tags (Make, Model, Orientation, DateTime, ...) in its first directory,
// the rest in an EXIF directory (with its interoperability directory) and a GPS directory it
// points to. These functions move tags between the two forms.
//
// An EXIF block read from a TIFF is laid out canonically: header, first directory, its values,
// then the EXIF, interoperability and GPS directories each followed by its values, every
// directory and value at an even offset, in the file's byte order. A block in that layout and
// byte order goes through a TIFF and back unchanged, byte for byte; any other block keeps every
// tag and value. The thumbnail (EXIF's second directory) and tags that describe the layout of
// the original image data (strips, compression, YCbCr) do not apply to the TIFF's pixels and are
// not carried. Maker notes are copied as bytes, as every EXIF tool does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gpublur {

/// The EXIF block of a TIFF file's first directory (canonical layout, the file's byte order), or
/// nothing when the file holds none of EXIF's tags or its directories cannot be read.
std::vector<std::uint8_t> exif_from_tiff(const std::uint8_t* file, std::size_t size);

/// Adds `exif`'s tags to `tiff`, a classic TIFF of one image: the EXIF, interoperability and GPS
/// directories are appended, and the first directory is rewritten at the end with the camera's
/// tags and the pointers added (the old one is left unreferenced). `exif`'s tags take the place
/// of the file's own where both have one (Orientation). A block whose directories cannot be read
/// is not added (what_tiff_drops names it).
void add_exif_to_tiff(std::vector<std::uint8_t>& tiff, const std::vector<std::uint8_t>& exif);

/// add_exif_to_tiff on a file held in parts, without the bytes between them: `header` (its first 8
/// bytes) and `tail` (its bytes from offset `at` on), where its first directory and all of that
/// directory's values lie in `tail` (tiff_frame's: the strips lie between). The parts become those
/// of the file add_exif_to_tiff makes (appended to `tail`; the header's directory offset). False,
/// and nothing changed, where the directory or a value of it does not lie in `tail`.
bool add_exif_to_tiff_tail(std::vector<std::uint8_t>& header, std::vector<std::uint8_t>& tail,
                           std::uint32_t at, const std::vector<std::uint8_t>& exif);

/// What of `exif` a TIFF cannot keep, for --verbose: "EXIF (unreadable)" or "EXIF thumbnail".
std::vector<std::string> what_tiff_drops(const std::vector<std::uint8_t>& exif);

}  // namespace gpublur
