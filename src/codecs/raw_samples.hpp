// raw_samples.hpp — image files whose samples are stored as a raster holds them, row by row (a
// binary PNM of maximum 255 or 65535; an uncompressed BMP of 24 or 32 bits; an uncompressed TIFF
// of 8 or 16 bits in strips), read and written without a decode or encode pass: each stored row
// goes from the file straight into its raster row and from the raster row straight into the file,
// at most with its samples reordered in place (PNM's 16-bit samples are big-endian, TIFF's in the
// file's order; BMP's pixels are B, G, R). For large raw images, whose decode and encode were
// copies as long as their read and write (an 8K RGB image is 100 MB). Thread-safe.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/atomic_file.hpp"
#include "codecs/decoded_image.hpp"
#include "codecs/encode_options.hpp"
#include "codecs/image_format.hpp"
#include "codecs/tiff_samples.hpp"
#include "image/decode_limits.hpp"

namespace gpublur {

/// Where a raw file's samples lie, and the raster they make.
struct RawLayout {
  ImageFormat format = ImageFormat::kPnm;
  int width = 0, height = 0, channels = 0, bits = 0;
  std::uint64_t offset = 0;   // of the first row stored, from the file's start
  std::uint64_t stride = 0;   // from one stored row to the next: row_bytes(), and padding (BMP's)
  // TIFF's strips: the stored rows [k * rows_per_strip, (k + 1) * rows_per_strip) lie from
  // strips[k] on, wherever that is (empty: all rows in one run from `offset`).
  std::vector<std::uint64_t> strips;
  std::uint64_t rows_per_strip = 0;
  bool swapped = false;       // 16-bit samples in the other byte order than the host's
  bool bottom_up = false;     // the first row stored is the image's last (BMP's positive height)
  bool bgr = false;           // each pixel's first and third samples stored the other way round
  bool alpha_if_any = false;  // RGBA, whose alpha the decoder keeps only where some pixel's is
                              // not 0 (BMP's 32 bits); else RGB: without_alpha
  Metadata metadata;          // as the decoder's has it (BMP: density; TIFF: ICC, XMP, EXIF too)

  std::uint64_t row_bytes() const {
    return std::uint64_t(width) * std::uint64_t(channels) * std::uint64_t(bits / 8);
  }
  /// The raster's bytes.
  std::uint64_t bytes() const { return row_bytes() * std::uint64_t(height); }
  /// The bytes from the first row stored to the last one's end, its padding included (which
  /// BMP's decoder requires too), where they are one run.
  std::uint64_t stored_bytes() const { return stride * std::uint64_t(height); }
  /// Where the `stored`th row stored lies in the file.
  std::uint64_t row_offset(std::size_t stored) const {
    if (strips.empty()) return offset + stored * stride;
    return strips[stored / rows_per_strip] + (stored % rows_per_strip) * stride;
  }
  /// How many rows stored from the `stored`th on, up to `most`, follow one another in the file:
  /// to the last row, or to the end of the last strip of those that follow one another (as a
  /// writer that appends its strips lays them out).
  std::size_t run_from(std::size_t stored, std::size_t most) const {
    const std::size_t left = std::min(most, static_cast<std::size_t>(height) - stored);
    if (strips.empty()) return left;
    std::size_t strip = stored / rows_per_strip;
    std::size_t run = rows_per_strip - stored % rows_per_strip;
    const std::uint64_t strip_bytes = rows_per_strip * stride;
    for (; run < left && strip + 1 < strips.size() &&
           strips[strip + 1] == strips[strip] + strip_bytes;
         ++strip) {
      run += rows_per_strip;
    }
    return std::min(run, left);
  }
  /// The raster row that the `stored`th row stored is.
  std::size_t raster_row(std::size_t stored) const {
    return bottom_up ? static_cast<std::size_t>(height) - 1 - stored : stored;
  }
};

/// For a file of `file_size` bytes whose first `size` bytes are `start`: its samples' layout,
/// where they are stored as the raster holds them, the file holds them all and the image is within
/// `limits`; nullopt otherwise (any other format or kind; a header longer than `start` (a TIFF's
/// directory and values, wherever they lie, included); a file too short, or an image too large:
/// the format's decoder then reports it in its own words). The raster read from that layout (its
/// rows put in place, reorder_samples, and where alpha_if_any and no pixel's alpha is above 0,
/// without_alpha) is the decoder's, sample for sample.
std::optional<RawLayout> raw_layout(const std::uint8_t* start, std::size_t size,
                                    std::uint64_t file_size, const DecodeLimits& limits);

/// raw_layout of a file read through `read`: PNM's and BMP's headers from its first 4 KiB, TIFF's
/// directory and tag values wherever they lie (tiff_samples.hpp).
std::optional<RawLayout> raw_layout(const ReadAt& read, std::uint64_t file_size,
                                    const DecodeLimits& limits);

/// A DecodedImage of the layout's shape, depth and metadata, its samples zero until the caller
/// reads them into its raster (AnyImage::data(), RawLayout::bytes()).
DecodedImage raw_image(const RawLayout& layout);

/// Puts `bytes` bytes of whole pixels at `samples` from the order `layout` stores them in into the
/// raster's, or back, in place (the same swaps either way): 16-bit samples' bytes, B and R.
void reorder_samples(const RawLayout& layout, void* samples, std::size_t bytes);

/// Swaps the bytes of each 16-bit sample among `bytes` bytes (even) at `samples`, in place:
/// between the host's order and a file's other one.
void swap_sample_bytes(void* samples, std::size_t bytes);

/// Whether some pixel among `bytes` bytes of 8-bit RGBA at `samples` has an alpha above 0.
bool any_alpha(const void* samples, std::size_t bytes);

/// An 8-bit RGBA image's RGB (its alpha, all 0, dropped as BMP's decoder drops it). Rows on
/// several threads.
Image without_alpha(const Image& image);

/// A file written from an image's own samples: a header, then the image's rows in the file's
/// order, each where the image holds it (merged where they follow one another), with its padding.
struct RawFile {
  std::string header;
  std::vector<ByteSpan> rows;  // the image's samples, and padding bytes of 0 that live for ever
  std::vector<std::uint8_t> trailer;  // after the rows (TIFF's directory, tag values and EXIF)

  /// The header, the rows, the trailer: the file's bytes, in order, valid while this and the
  /// image live.
  std::vector<ByteSpan> pieces() const;
};

/// Whether `format` stores an image of this depth and channels as it is (raw_file takes it,
/// unless its encoder would refuse it for its size): PNM of 8 or 16 bits; BMP of 8-bit RGB or RGBA;
/// TIFF of 8 or 16 bits, 1-4 channels, where `tiff_compression` is kNone.
bool stored_raw(ImageFormat format, int bits, int channels,
                TiffCompression tiff_compression = TiffCompression::kAuto);

/// Where `format` stores `image`'s samples as they are (stored_raw): its header and rows, the
/// image's samples put into the file's order in place (rows on several threads), so that the
/// pieces are the file encode_image(image, format, options, metadata) would have made, where
/// options' tiff_compression is `tiff_compression`. The image is the file's now, not the caller's.
/// nullopt (and the image as it was) for anything else.
std::optional<RawFile> raw_file(AnyImage& image, ImageFormat format, const Metadata& metadata,
                                TiffCompression tiff_compression = TiffCompression::kAuto);

}  // namespace gpublur
