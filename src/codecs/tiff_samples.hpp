// tiff_samples.hpp — where an uncompressed TIFF stores its samples as decode_tiff's raster holds
// them: strips of whole rows, each read where it lies (raw_samples.hpp), with the image's
// metadata as decode_tiff gives it. The directory is read by libtiff itself, through the caller's
// reads of the file (the directory and tag values only, never the strips), so that the file is
// understood as the decoder understands it. Thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "image/decode_limits.hpp"
#include "image/metadata.hpp"

namespace gpublur {

/// Reads `size` bytes at `offset` of a file into `out`; false where the file ends first or the
/// read fails.
using ReadAt = std::function<bool(std::uint64_t offset, std::size_t size, std::uint8_t* out)>;

struct TiffSamples {
  int width = 0, height = 0, channels = 0, bits = 0;
  bool big_endian = false;            // the file's byte order (its 16-bit samples')
  std::uint32_t rows_per_strip = 0;   // the last strip may hold fewer
  std::vector<std::uint64_t> strips;  // each strip's offset, in the image's order
  Metadata metadata;                  // ICC profile, XMP, density and EXIF, as decode_tiff's
};

/// For a classic TIFF of `file_size` bytes, read through `read`: where its first image's samples
/// lie, where decode_tiff's image is those samples as they are (16-bit ones in the file's byte
/// order): uncompressed, contiguous strips of 8- or 16-bit unsigned gray, gray+alpha, RGB or RGBA
/// (alpha unassociated), most significant bit first, each strip's byte count its rows' and all of
/// it in the file, and the image within `limits`. nullopt for anything else (decode_tiff then
/// reads it, and reports what is wrong in its words).
std::optional<TiffSamples> tiff_samples(const ReadAt& read, std::uint64_t file_size,
                                        const DecodeLimits& limits);

}  // namespace gpublur
