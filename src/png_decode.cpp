// png_decode.cpp — lodepng parses the chunks and undoes the row filters; libdeflate inflates.
#include "png_decode.hpp"

#include <libdeflate.h>
#include <lodepng.h>

#include <cstdlib>
#include <memory>

namespace gpublur {
namespace {

struct FreeDeleter {
  void operator()(unsigned char* p) const noexcept { std::free(p); }
};

class LodeState {
 public:
  LodeState() { lodepng_state_init(&state_); }
  ~LodeState() { lodepng_state_cleanup(&state_); }
  LodeState(const LodeState&) = delete;
  LodeState& operator=(const LodeState&) = delete;
  LodePNGState* get() { return &state_; }

 private:
  LodePNGState state_;
};

// The size of the filtered scanlines (a filter byte per row), which inflating must give exactly.
struct InflateTarget {
  std::size_t bytes = 0;
};

// lodepng's custom_zlib hook: the whole zlib stream (all IDAT chunks) in, the scanlines out, in
// a malloc'd buffer lodepng frees. libdeflate checks the Adler-32. Non-zero means failure.
unsigned inflate_with_libdeflate(unsigned char** out, std::size_t* out_size,
                                 const unsigned char* in, std::size_t in_size,
                                 const LodePNGDecompressSettings* settings) {
  const auto* target = static_cast<const InflateTarget*>(settings->custom_context);
  std::unique_ptr<unsigned char, FreeDeleter> buffer(
      static_cast<unsigned char*>(std::malloc(target->bytes)));
  libdeflate_decompressor* inflater = libdeflate_alloc_decompressor();
  if (!buffer || !inflater) {
    libdeflate_free_decompressor(inflater);
    return 1;
  }
  std::size_t actual = 0;
  const libdeflate_result result =
      libdeflate_zlib_decompress(inflater, in, in_size, buffer.get(), target->bytes, &actual);
  libdeflate_free_decompressor(inflater);
  if (result != LIBDEFLATE_SUCCESS || actual != target->bytes) return 1;
  *out = buffer.release();
  *out_size = actual;
  return 0;
}

int channels_of(LodePNGColorType type) {
  switch (type) {
    case LCT_GREY:
      return 1;
    case LCT_GREY_ALPHA:
      return 2;
    case LCT_RGB:
      return 3;
    case LCT_RGBA:
      return 4;
    default:
      return 0;  // palette: stb_image expands it
  }
}

}  // namespace

std::optional<ReadImage> decode_png_directly(const std::vector<std::uint8_t>& file) {
  LodeState state;
  unsigned width = 0, height = 0;
  if (lodepng_inspect(&width, &height, state.get(), file.data(), file.size()) != 0) {
    return std::nullopt;  // not a PNG, or a damaged header
  }
  const LodePNGColorMode& color = state.get()->info_png.color;
  const int channels = channels_of(color.colortype);
  const unsigned bits = color.bitdepth;
  if (channels == 0 || (bits != 8 && bits != 16) || state.get()->info_png.interlace_method != 0 ||
      width == 0 || height == 0 || width > static_cast<unsigned>(kMaxDimension) ||
      height > static_cast<unsigned>(kMaxDimension)) {
    return std::nullopt;
  }
  const std::size_t row_bytes = std::size_t{width} * static_cast<std::size_t>(channels) * bits / 8;
  InflateTarget target{std::size_t{height} * (row_bytes + 1)};
  LodePNGDecoderSettings& decoder = state.get()->decoder;
  decoder.zlibsettings.custom_zlib = inflate_with_libdeflate;
  decoder.zlibsettings.custom_context = &target;
  decoder.color_convert = 0;  // the samples as stored
  decoder.ignore_crc = 1;     // as stb_image; the Adler-32 covers the image data
  unsigned char* raw = nullptr;
  const unsigned error = lodepng_decode(&raw, &width, &height, state.get(), file.data(), file.size());
  const std::unique_ptr<unsigned char, FreeDeleter> samples(raw);
  // A colour key (tRNS) becomes an alpha channel in stb_image; leave those files to it.
  if (error != 0 || !samples || state.get()->info_png.color.key_defined) return std::nullopt;

  ReadImage result;
  result.bits = static_cast<int>(bits);
  const int w = static_cast<int>(width), h = static_cast<int>(height);
  if (bits == 8) {
    result.image = make_raster_from(samples.get(), w, h, channels);
    return result;
  }
  result.image16 = make_raster<std::uint16_t>(w, h, channels);
  const unsigned char* big_endian = samples.get();
  for (std::uint16_t& sample : result.image16.pixels) {
    sample = static_cast<std::uint16_t>(big_endian[0] << 8 | big_endian[1]);
    big_endian += 2;
  }
  return result;
}

}  // namespace gpublur
