// image_io.hpp — reading images with stb_image and writing them with stb_image_write.
// Nothing outside image_io.cpp and stb_impl.cpp sees stb. Not thread-safe (stb keeps its
// failure reason in a global).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "decoded_image.hpp"
#include "image.hpp"

namespace gpublur {

enum class ImageFormat { kPng, kJpeg, kBmp, kTga, kHdr };

/// The output format named by path's extension (case-insensitive): .png .jpg .jpeg .bmp .tga
/// .hdr.
std::optional<ImageFormat> format_for_path(std::string_view path);

/// Reads any image stb_image reads (PNG, JPEG, BMP, TGA, PNM, GIF, PSD, HDR, PIC), keeping its
/// 1-4 channels and, for 16-bit PNG and PNM, its 16 bits. Throws IoError("cannot read 'path':
/// <reason>").
ReadImage read_image(const std::string& path);

/// The same in two steps, so a caller can look at the file before decoding it: the file's
/// bytes (throws IoError), the sample depth its header declares (8, 16, or 32 for HDR; 8 when
/// unknown), and the decode (`path` names the file in errors).
std::vector<std::uint8_t> read_file(const std::string& path);
int sample_bits(const std::vector<std::uint8_t>& file);
ReadImage decode_image(const std::vector<std::uint8_t>& file, const std::string& path);

/// 16 -> 8 bits, rounded to nearest: v * 255 / 65535.
Image to_8_bit(const Image16& image);

/// HDR -> 8 bits the way stb_image does it by default: colour v -> 255 * v^(1/2.2), clamped;
/// alpha -> 255 * a.
Image to_8_bit(const ImageF& image);

struct WriteOptions {
  // zlib level 0..9, compressed on all cores (png_encode.hpp). 4 is the knee: a 1080p photo
  // encodes several times faster than stock stb_image_write into a file a third smaller
  // (bench/RESULTS.md); 6-9 trade time for a few percent.
  int png_level = 4;
  int jpeg_quality = 95;  // 1..100
};

/// Encodes `image` in `format` (in memory; never touches the disk).
std::vector<std::uint8_t> encode_image(const Image& image, ImageFormat format,
                                       const WriteOptions& options = {});

/// Encodes by path's extension, in memory. Throws UsageError for an extension that cannot hold
/// the image (unknown; HDR only as .hdr; 16 bits only as .png: the caller converts with
/// to_8_bit when the user asked for another format), IoError when encoding fails.
std::vector<std::uint8_t> encode_for_path(const Image& image, const std::string& path,
                                          const WriteOptions& options = {});
std::vector<std::uint8_t> encode_for_path(const Image16& image, const std::string& path,
                                          const WriteOptions& options = {});
std::vector<std::uint8_t> encode_for_path(const ImageF& image, const std::string& path,
                                          const WriteOptions& options = {});

/// encode_for_path, then replaces path atomically; never leaves a partial file. Sample:
/// std::uint8_t, std::uint16_t or float.
template <typename Sample>
void write_image(const Raster<Sample>& image, const std::string& path,
                 const WriteOptions& options = {});

}  // namespace gpublur
