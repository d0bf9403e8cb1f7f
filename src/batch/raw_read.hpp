// raw_read.hpp — a raw image file (codecs/raw_samples.hpp: a binary PNM of maximum 255 or 65535,
// an uncompressed BMP of 24 or 32 bits, an uncompressed TIFF of 8 or 16 bits in strips) read
// straight into its raster by several threads at once, a piece of rows each, each row into its
// place: no copy of the file, no decode pass. One thread reads the page cache at 1-3 GB/s, and a
// batch of large images has fewer of them in flight than it has threads. Thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "codecs/decoded_image.hpp"
#include "image/decode_limits.hpp"

namespace gpublur {

struct RawRead {
  DecodedImage decoded;          // as decode_image would have made it, sample for sample
  std::uint64_t file_bytes = 0;  // the file's size
};

/// The image at `path`, where it is a regular file of a raw layout (raw_layout) whose samples
/// could all be read; nullopt for anything else: another format or kind, standard input, a pipe,
/// a file that cannot be opened, or one that ends early or fails while read (read_file and
/// decode_image then read it, and report what is wrong in their words). Throws Stopped where a
/// stop signal comes while it reads.
std::optional<RawRead> read_raw_image(const std::string& path, const DecodeLimits& limits);

}  // namespace gpublur
