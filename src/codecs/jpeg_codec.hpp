// jpeg_codec.hpp — JPEG files read and written by libjpeg-turbo (SIMD codecs, continuously fuzzed
// by OSS-Fuzz), through libjpeg's API, which carries the ICC profile (APP2), EXIF and XMP (APP1).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "codecs/decoded_image.hpp"
#include "codecs/encode_options.hpp"
#include "image/decode_limits.hpp"

namespace gpublur {

/// A JPEG of more scans than this is refused as damaged (see jpeg_codec.cpp).
constexpr int kMaxJpegScans = 100;

/// Baseline, progressive, arithmetic-coded, restart markers, any chroma subsampling: gray JPEGs
/// as one channel, colour ones as RGB; CMYK and YCCK (Adobe's inverted ones too) converted to
/// RGB. Density from JFIF, ICC profile from APP2, EXIF and XMP from APP1. Checks the size against
/// `limits`, and that a Huffman-coded file has at least a bit per 8x8 block, before decoding. A
/// file that ends early, or holds more than kMaxJpegScans scans, is an error, not a gray-filled
/// or slowly decoded image. Throws IoError saying why.
/// `subsampling` receives the file's chroma subsampling (for ChromaSubsampling::kAuto).
DecodedImage decode_jpeg(const std::uint8_t* data, std::size_t size, const DecodeLimits& limits,
                         ChromaSubsampling* subsampling = nullptr);

/// What a JPEG's headers say, read by libjpeg-turbo without decoding the image: what the GPU's
/// decoder (nvJPEG) is given the file on, and what the image will be once decoded.
struct JpegFacts {
  int width = 0, height = 0;
  int channels = 0;  // as decode_jpeg gives them: 1 (gray) or 3
  ChromaSubsampling subsampling = ChromaSubsampling::kAuto;  // as decode_jpeg reports it
  Metadata metadata;                                         // as decode_jpeg reads it
  /// Whether the GPU may decode it: 8-bit, Huffman-coded, sequential in one scan (what the
  /// hardware decoder takes), gray or YCbCr sampled 4:4:4, 4:2:2 or 4:2:0, its scan ending in
  /// EOI. The rest (progressive, arithmetic, 12-bit, CMYK, YCCK, RGB, other sampling, a file cut
  /// short) goes to libjpeg-turbo, which decodes it, or refuses it with its own error.
  bool gpu_decodable = false;
  std::string why_not;  // when not: what rules it out
};

/// Reads the headers of the JPEG `data`, with decode_jpeg's checks of the size against `limits`
/// and of the data's length; throws IoError as decode_jpeg does for a damaged header.
JpegFacts read_jpeg_facts(const std::uint8_t* data, std::size_t size, const DecodeLimits& limits);

/// 1 channel as a gray JPEG, 3 as YCbCr; the alpha of 2 and 4 is dropped (JPEG has none).
/// `subsampling` kAuto is as encode_options.hpp says, with no JPEG input: 4:4:4 from quality 90.
/// EXIF or XMP longer than one APP1 segment holds (65,527 and 65,504 bytes) is dropped. Throws
/// IoError.
std::vector<std::uint8_t> encode_jpeg(const Image& image, int quality,
                                      ChromaSubsampling subsampling, const Metadata& metadata = {});

}  // namespace gpublur
