// jpeg_markers.hpp — the metadata segments of a JPEG gpublur writes, as bytes: what the GPU's
// encoder (nvJPEG), which writes no metadata of ours, is given so that its files carry what the
// CPU's (libjpeg-turbo) carry. Pure; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "image/metadata.hpp"

namespace gpublur {

/// XMP in a JPEG: an APP1 segment holding this namespace and its NUL (29 bytes), then the packet,
/// so at most 65,504 bytes of it (a longer packet needs Extended XMP's segments, which gpublur
/// does not write).
constexpr char kJpegXmpHeader[] = "http://ns.adobe.com/xap/1.0/";
constexpr std::size_t kMaxJpegXmpBytes = 65533 - sizeof kJpegXmpHeader;

/// The segments jpeg_codec's encoder writes after SOI, byte for byte as libjpeg-turbo writes
/// them: JFIF APP0 (with the density, else 1:1 without a unit), EXIF APP1 and XMP APP1 (each left
/// out where it is longer than one segment holds), the ICC profile as APP2 chunks.
std::vector<std::uint8_t> jpeg_metadata_segments(const Metadata& metadata);

/// `jpeg`, a whole JPEG, with the application and comment segments that follow its SOI replaced
/// by jpeg_metadata_segments(metadata). Throws IoError where `jpeg` does not start with SOI or a
/// segment there runs past its end.
std::vector<std::uint8_t> with_jpeg_metadata(const std::vector<std::uint8_t>& jpeg,
                                             const Metadata& metadata);

}  // namespace gpublur
