// pnm_codec.hpp — Netpbm files (PBM, PGM, PPM, PAM), read and written by gpublur's own small codec
// (fuzzed by fuzz/fuzz_pnm.cpp; tests hold it to stb_image's samples where stb reads the file).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "codecs/decoded_image.hpp"
#include "image/decode_limits.hpp"

namespace gpublur {

/// P1-P6 (ASCII and binary bitmaps, gray maps and pixel maps) and P7 (PAM: 1-4 channels). Samples
/// of a maximum up to 255 come out as 8 bits, above as 16, scaled to the full range when the
/// maximum is another (v * 255 / max, rounded); bitmaps as gray 255 (white) and 0. Checks the
/// size against `limits`, and that the data can hold the image, before allocating. Throws IoError.
DecodedImage decode_pnm(const std::uint8_t* data, std::size_t size, const DecodeLimits& limits);

/// Where a binary PNM stores its samples as decode_pnm's raster holds them: the image's shape, its
/// samples' depth (16-bit ones big-endian, as the file has them) and where they start.
struct PnmSamples {
  int width = 0, height = 0, channels = 0, bits = 0;
  std::size_t offset = 0;  // of the first sample, from the file's start
};

/// For a PNM whose first `size` bytes are `data`: where its samples lie, if they are stored as
/// decode_pnm's raster holds them (P5, P6 or P7, maximum 255 or 65535: no scaling); nullopt for any
/// other PNM, a header decode_pnm refuses, or one that `data` does not hold whole. Checks neither
/// the size against limits nor that the file holds the samples.
std::optional<PnmSamples> pnm_samples(const std::uint8_t* data, std::size_t size);

/// The header encode_pnm writes before an image's samples: P5 (gray), P6 (RGB), or P7 (gray+alpha,
/// RGBA); maximum 255 for 8 bits, 65535 for 16.
std::string pnm_header(int width, int height, int channels, int bits);

/// P5 (gray), P6 (RGB), or P7 (gray+alpha, RGBA); 8 or 16 bits (maximum 255 or 65535).
/// Sample: std::uint8_t or std::uint16_t.
template <typename Sample>
std::vector<std::uint8_t> encode_pnm(const Raster<Sample>& image);

}  // namespace gpublur
