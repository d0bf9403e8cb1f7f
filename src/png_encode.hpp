// png_encode.hpp — PNG files, 8 or 16 bits per sample, filtered and deflated on all cores.
//
// The rows are cut into bands. Each band is Paeth-filtered and deflated by zlib on its own
// thread, a few rows at a time, and ends in a sync flush, so the bands concatenate into one valid
// zlib stream (the technique of pigz); their Adler-32s combine into the stream's. Each band is one
// IDAT chunk. libpng writes the chunks (signature, IHDR, the IDATs, IEND) and their CRCs.
// Nothing the size of the image is copied: each band reads the pixels where they are.
#pragma once

#include <cstdint>
#include <vector>

#include "image.hpp"

namespace gpublur {

/// Lowest and highest --png-level (zlib's levels; 0 stores without compression).
constexpr int kMinPngLevel = 0;
constexpr int kMaxPngLevel = 9;

/// How a PNG is encoded. `bands` 0 picks one band per core (fewer for small images); tests set
/// it to exercise many bands on any machine.
struct PngEncoding {
  int level = 4;  // zlib level, kMinPngLevel..kMaxPngLevel
  int bands = 0;
};

/// `image` (1-4 channels: gray, gray+alpha, RGB, RGBA) as a PNG file. Throws IoError with
/// libpng's or zlib's message on failure.
std::vector<std::uint8_t> encode_png(const Image& image, const PngEncoding& encoding);
std::vector<std::uint8_t> encode_png(const Image16& image, const PngEncoding& encoding);

}  // namespace gpublur
