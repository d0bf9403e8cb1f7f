// raw_samples.hpp — image files whose samples are stored as a raster holds them (a binary PNM of
// maximum 255 or 65535), read and written without a decode or encode pass: the samples go from
// the file straight into the raster and from the raster straight into the file, at most with a
// byte swap in place (PNM's 16-bit samples are big-endian). For large raw images, whose decode and
// encode were copies as long as their read and write (an 8K RGB image is 100 MB).
// Thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "codecs/decoded_image.hpp"
#include "codecs/image_format.hpp"
#include "image/decode_limits.hpp"

namespace gpublur {

/// Where a raw file's samples lie, and the raster they make.
struct RawLayout {
  ImageFormat format = ImageFormat::kPnm;
  int width = 0, height = 0, channels = 0, bits = 0;
  std::uint64_t offset = 0;  // of the first sample, from the file's start
  bool swapped = false;      // 16-bit samples in the other byte order than the host's

  std::uint64_t bytes() const {
    return std::uint64_t(width) * std::uint64_t(height) * std::uint64_t(channels) *
           std::uint64_t(bits / 8);
  }
};

/// For a file of `file_size` bytes whose first `size` bytes are `start`: its samples' layout,
/// where they are stored as the raster holds them, the file holds them all and the image is within
/// `limits`; nullopt otherwise (any other format or kind; a header longer than `start`; a file too
/// short, or an image too large: the format's decoder then reports it in its own words). The
/// raster read from that layout is the decoder's, sample for sample.
std::optional<RawLayout> raw_layout(const std::uint8_t* start, std::size_t size,
                                    std::uint64_t file_size, const DecodeLimits& limits);

/// A DecodedImage of the layout's shape and depth, its samples zero until the caller reads them
/// into its raster (AnyImage::data(), RawLayout::bytes()).
DecodedImage raw_image(const RawLayout& layout);

/// Swaps the bytes of each 16-bit sample among `bytes` bytes (even) at `samples`, in place:
/// between the host's order and a file's other one.
void swap_sample_bytes(void* samples, std::size_t bytes);

/// Where `format` stores `image`'s samples as they are after a header (PNM of 8 or 16 bits): that
/// header, the image's samples put into the file's byte order in place, so that the header and
/// then the image's bytes (AnyImage::data(), byte_count()) are the file encode_image would have
/// made. The image is the file's now, not the caller's. nullopt (and the image as it was) for any
/// other format or depth.
std::optional<std::string> raw_file_header(AnyImage& image, ImageFormat format);

}  // namespace gpublur
