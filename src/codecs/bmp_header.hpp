// bmp_header.hpp — BMP's headers, read (every kind decode_bmp takes) and written (encode_bmp's
// two), and where a file keeps its pixels as whole bytes B, G, R (and A): one place for the facts
// the codec and the raw route (raw_samples.hpp) both go by, so that their images and files agree
// byte for byte. Pure; thread-safe.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "base/byte_reader.hpp"
#include "image/metadata.hpp"

namespace gpublur {

constexpr std::uint32_t kBmpRgb = 0, kBmpRle8 = 1, kBmpRle4 = 2, kBmpBitFields = 3,
                        kBmpAlphaBitFields = 6;

struct BmpHeader {
  std::int64_t width = 0, height = 0;
  bool top_down = false;
  int bpp = 0;
  std::uint32_t compression = kBmpRgb;
  std::uint32_t colours_used = 0;
  std::array<std::uint32_t, 4> masks{};  // R, G, B, A; all 0: the format's default
  bool core = false;                     // OS/2 BITMAPCOREHEADER: 3-byte palette entries
  std::int32_t x_ppm = 0, y_ppm = 0;
  std::uint32_t data_offset = 0;
};

/// The file header and the info header (BITMAPCOREHEADER, BITMAPINFOHEADER to BITMAPV5HEADER, and
/// a BITMAPINFOHEADER's bit field masks after it) at `r`'s start; `r` is left where a palette would
/// start. Throws IoError: not a BMP, a header size BMP has not, or "truncated file".
BmpHeader read_bmp_header(ByteReader& r);

/// The density a header states (pixels per metre, both above 0), as decode_bmp's metadata has it.
std::optional<Density> bmp_density(const BmpHeader& h);

/// Where a BMP stores its pixels as rows of whole bytes: B, G, R (24 bits) or B, G, R, A (32).
struct BmpSamples {
  int width = 0, height = 0;
  int pixel_bytes = 0;     // 3, or 4: alpha where some pixel's fourth byte is not 0, else RGB
  bool top_down = false;   // else the file's first row is the image's last
  std::size_t offset = 0;  // of the first row stored, from the file's start
  std::size_t stride = 0;  // from one row to the next: width * pixel_bytes, padded to 4 bytes
  std::optional<Density> density;
};

/// For a BMP whose first `size` bytes are `data`: where its pixels lie, if decode_bmp reads them
/// byte for byte (uncompressed 24 or 32 bits, or bit fields of those bytes, width and height from
/// 1 to kMaxDimension); nullopt for any other BMP, a header decode_bmp refuses, or one that `data`
/// does not hold whole. Checks neither the size against limits nor that the file holds the rows.
std::optional<BmpSamples> bmp_samples(const std::uint8_t* data, std::size_t size);

/// The headers encode_bmp writes before an image's rows: 24-bit BGR with a BITMAPINFOHEADER for 1
/// and 3 channels, 32-bit BGRA with a BITMAPV4HEADER (its alpha mask) for 2 and 4; bottom-up, rows
/// padded to 4 bytes; the density `metadata` states. Throws IoError for an image BMP cannot hold
/// (rows of more than 4 GiB in all).
std::string bmp_header(int width, int height, int channels, const Metadata& metadata);

/// The bytes from one of those rows to the next: the row's, padded to 4.
std::size_t bmp_stride(int width, int channels);

}  // namespace gpublur
