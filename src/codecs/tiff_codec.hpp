// tiff_codec.hpp — TIFF files read and written by libtiff (the reference TIFF library,
// continuously fuzzed by OSS-Fuzz), on memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "codecs/decoded_image.hpp"
#include "codecs/encode_options.hpp"
#include "image/decode_limits.hpp"

namespace gpublur {

/// The first page. 8- and 16-bit gray, gray+alpha, RGB and RGBA, in strips or tiles, planes
/// interleaved or separate, under any compression libtiff decodes, are read as they are (gray with
/// 0 as white inverted); every other kind libtiff can render (palette, 1-4 bit, CMYK, YCbCr) as
/// 8-bit RGB(A), or gray for bilevel and gray ones. ICC profile, XMP and density come along. Checks
/// the size against `limits` before decoding. Throws IoError saying why.
DecodedImage decode_tiff(const std::uint8_t* data, std::size_t size, const DecodeLimits& limits);

/// 8- or 16-bit samples, 1-4 channels (the alpha of 2 and 4 as unassociated alpha), deflated
/// with the horizontal predictor (kAuto and kDeflate) or stored as they are (kNone); ICC profile,
/// XMP and density kept. Sample: std::uint8_t or std::uint16_t. Throws IoError.
template <typename Sample>
std::vector<std::uint8_t> encode_tiff(const Raster<Sample>& image, const Metadata& metadata = {},
                                      TiffCompression compression = TiffCompression::kDeflate);

/// An uncompressed TIFF's bytes around its strips: the file is `head`, then the raster's rows as
/// they are (host byte order, in order: the strips), then `tail` (the directory, its tag values
/// and EXIF's directories).
struct TiffFrame {
  std::vector<std::uint8_t> head, tail;
};

/// encode_tiff(image, metadata, TiffCompression::kNone)'s file, byte for byte, without a copy of
/// the samples: the frame around them. nullopt where it cannot be made so (the encoder would
/// refuse the image; EXIF not placed as add_exif_to_tiff places it).
template <typename Sample>
std::optional<TiffFrame> tiff_frame(const Raster<Sample>& image, const Metadata& metadata);

}  // namespace gpublur
