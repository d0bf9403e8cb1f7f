// png_encode.hpp — PNG files, 8 or 16 bits per sample: each row filtered by whichever of PNG's five
// filters libpng's heuristic picks, the whole image deflated by libdeflate in one zlib stream, and
// the chunks (IHDR, iCCP, pHYs, eXIf, iTXt for XMP, IDAT, IEND) written here with libdeflate's
// CRC-32.
//
// Why libdeflate in one stream: on a blurred photo its levels 1 to 2 deflate in a fraction of
// zlib level 1's time (one core) into files no larger than OpenCV's. A batch
// encodes one image per core; its bytes depend on nothing but the pixels and the level, never on
// the machine's core count, so a batch and a single run write the same files.
#pragma once

#include <cstdint>
#include <vector>

#include "image/image.hpp"
#include "image/metadata.hpp"

namespace gpublur {

/// `image` (1-4 channels: gray, gray+alpha, RGB, RGBA) as a PNG file, deflated at libdeflate's
/// `level` (kMinPngLevel..kMaxPngLevel, encode_options.hpp), with the metadata PNG holds (ICC
/// profile, EXIF, XMP, density). Throws IoError where the image cannot be encoded.
std::vector<std::uint8_t> encode_png(const Image& image, int level, const Metadata& metadata = {});
std::vector<std::uint8_t> encode_png(const Image16& image, int level,
                                     const Metadata& metadata = {});

/// The same, freeing `image`'s samples once its rows are filtered (before the deflate), so the
/// encoder holds about twice the image at most, not three times.
std::vector<std::uint8_t> encode_png(Image&& image, int level, const Metadata& metadata = {});
std::vector<std::uint8_t> encode_png(Image16&& image, int level, const Metadata& metadata = {});

}  // namespace gpublur
