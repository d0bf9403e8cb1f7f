// raw_samples.cpp — PNM's binary samples as rasters hold them: the one raw format so stored.
#include "codecs/raw_samples.hpp"

#include <cstring>

#include "base/errors.hpp"
#include "codecs/pnm_codec.hpp"

namespace gpublur {
namespace {

// PNM's 16-bit samples are big-endian.
constexpr bool kHostLittleEndian = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;

}  // namespace

std::optional<RawLayout> raw_layout(const std::uint8_t* start, std::size_t size,
                                    std::uint64_t file_size, const DecodeLimits& limits) {
  if (sniff_format(start, size, "") != ImageFormat::kPnm) return std::nullopt;
  const std::optional<PnmSamples> pnm = pnm_samples(start, size);
  if (!pnm) return std::nullopt;
  RawLayout layout;
  layout.format = ImageFormat::kPnm;
  layout.width = pnm->width, layout.height = pnm->height, layout.channels = pnm->channels;
  layout.bits = pnm->bits;
  layout.offset = pnm->offset;
  layout.swapped = pnm->bits == 16 && kHostLittleEndian;
  try {
    check_image_size({pnm->width, pnm->height, pnm->channels, pnm->bits / 8}, limits);
  } catch (const IoError&) {
    return std::nullopt;
  }
  if (file_size < layout.offset || file_size - layout.offset < layout.bytes()) return std::nullopt;
  return layout;
}

DecodedImage raw_image(const RawLayout& layout) {
  DecodedImage d;
  d.format = layout.format;
  if (layout.bits == 16) {
    d.image = make_raster<std::uint16_t>(layout.width, layout.height, layout.channels);
  } else {
    d.image = make_raster<std::uint8_t>(layout.width, layout.height, layout.channels);
  }
  return d;
}

void swap_sample_bytes(void* samples, std::size_t bytes) {
  auto* p = static_cast<std::uint8_t*>(samples);
  for (std::size_t i = 0; i + 1 < bytes; i += 2) {
    std::uint16_t v;
    std::memcpy(&v, p + i, 2);
    v = __builtin_bswap16(v);
    std::memcpy(p + i, &v, 2);
  }
}

std::optional<std::string> raw_file_header(AnyImage& image, ImageFormat format) {
  if (format != ImageFormat::kPnm || image.bits() > 16 || !image.data()) return std::nullopt;
  if (image.bits() == 16 && kHostLittleEndian) swap_sample_bytes(image.data(), image.byte_count());
  return pnm_header(image.width(), image.height(), image.channels(), image.bits());
}

}  // namespace gpublur
