// png_decode.cpp — our chunk walk checks sizes and finds eXIf; lodepng parses, unfilters,
// de-interlaces and converts; libdeflate inflates.
#include "codecs/png_decode.hpp"

#include <libdeflate.h>
#include <lodepng.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "base/errors.hpp"

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

std::uint32_t be32(const std::uint8_t* p) {
  return std::uint32_t{p[0]} << 24 | std::uint32_t{p[1]} << 16 | std::uint32_t{p[2]} << 8 | p[3];
}

// What the chunk walk finds before lodepng decodes anything.
struct Chunks {
  std::uint32_t width = 0, height = 0;
  int bit_depth = 0, color_type = 0;
  bool interlaced = false;
  bool transparency = false;  // a tRNS chunk
  std::uint64_t idat_bytes = 0;
  std::vector<std::uint8_t> exif;
  std::vector<std::uint8_t> xmp;
};

// PNG's place for XMP (the XMP specification's): an iTXt chunk of this keyword.
constexpr char kXmpKeyword[] = "XML:com.adobe.xmp";
// A compressed XMP packet inflates to at most this (it is text: a few KB, rarely a few MB).
constexpr std::size_t kMaxXmpBytes = std::size_t{16} << 20;

// `in` inflated (zlib), up to `limit` bytes; empty where it is damaged or inflates past `limit`.
std::vector<std::uint8_t> inflate_up_to(const std::uint8_t* in, std::size_t size,
                                        std::size_t limit) {
  libdeflate_decompressor* inflater = libdeflate_alloc_decompressor();
  std::vector<std::uint8_t> out;
  for (std::size_t capacity = std::min<std::size_t>(limit, 4 * size + 1024); inflater;
       capacity = std::min(4 * capacity, limit)) {
    out.resize(capacity);
    std::size_t actual = 0;
    const libdeflate_result result =
        libdeflate_zlib_decompress(inflater, in, size, out.data(), out.size(), &actual);
    if (result == LIBDEFLATE_SUCCESS) {
      out.resize(actual);
      break;
    }
    out.clear();
    if (result != LIBDEFLATE_INSUFFICIENT_SPACE || capacity == limit) break;
  }
  libdeflate_free_decompressor(inflater);
  return out;
}

// The XMP packet of an iTXt chunk (keyword, NUL, compression flag and method, language tag and
// translated keyword each ending in NUL, then the text); empty for another keyword or a damaged
// chunk, which, being ancillary, costs the image nothing.
std::vector<std::uint8_t> xmp_of_itxt(const std::uint8_t* body, std::size_t length) {
  const std::uint8_t* end = body + length;
  if (length < sizeof kXmpKeyword + 2 || std::memcmp(body, kXmpKeyword, sizeof kXmpKeyword) != 0)
    return {};
  const bool compressed = body[sizeof kXmpKeyword] != 0;
  const bool deflate = body[sizeof kXmpKeyword + 1] == 0;
  const std::uint8_t* text = body + sizeof kXmpKeyword + 2;
  for (int field = 0; field < 2; ++field) {  // the language tag, the translated keyword
    const void* nul = std::memchr(text, 0, static_cast<std::size_t>(end - text));
    if (!nul) return {};
    text = static_cast<const std::uint8_t*>(nul) + 1;
  }
  if (!compressed) return std::vector<std::uint8_t>(text, end);
  if (!deflate) return {};
  return inflate_up_to(text, static_cast<std::size_t>(end - text), kMaxXmpBytes);
}

Chunks walk_chunks(const std::uint8_t* data, std::size_t size) {
  static const std::uint8_t kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (size < 8 + 25 || std::memcmp(data, kSignature, 8) != 0) throw IoError("not a PNG file");
  Chunks c;
  std::size_t at = 8;
  bool first = true;
  while (at + 12 <= size) {
    const std::uint32_t length = be32(data + at);
    const std::uint8_t* type = data + at + 4;
    const std::uint8_t* body = data + at + 8;
    if (length > 0x7fffffffu || length > size - at - 12) break;  // lodepng reports the damage
    if (first) {
      if (std::memcmp(type, "IHDR", 4) != 0 || length != 13) throw IoError("PNG without IHDR");
      c.width = be32(body);
      c.height = be32(body + 4);
      c.bit_depth = body[8];
      c.color_type = body[9];
      c.interlaced = body[12] != 0;
      first = false;
    } else if (std::memcmp(type, "IDAT", 4) == 0) {
      c.idat_bytes += length;
    } else if (std::memcmp(type, "tRNS", 4) == 0) {
      c.transparency = true;
    } else if (std::memcmp(type, "eXIf", 4) == 0) {
      c.exif.assign(body, body + length);
    } else if (std::memcmp(type, "iTXt", 4) == 0 && c.xmp.empty()) {
      c.xmp = xmp_of_itxt(body, length);
    } else if (std::memcmp(type, "IEND", 4) == 0) {
      break;
    }
    at += 12 + std::size_t{length};
  }
  if (first) throw IoError("truncated PNG");
  return c;
}

int samples_in_file(int color_type) {
  switch (color_type) {
    case 0:
      return 1;  // gray
    case 2:
      return 3;  // RGB
    case 3:
      return 1;  // palette index
    case 4:
      return 2;  // gray + alpha
    case 6:
      return 4;  // RGBA
    default:
      throw IoError("PNG of unknown colour type " + std::to_string(color_type));
  }
}

// The inflated image data: a filter byte and the packed samples of every row, of each of
// Adam7's seven passes when interlaced.
std::uint64_t filtered_bytes(const Chunks& c) {
  const std::uint64_t bits_per_pixel = static_cast<std::uint64_t>(samples_in_file(c.color_type)) *
                                       static_cast<unsigned>(c.bit_depth);
  const auto rows = [&](std::uint64_t w, std::uint64_t h) {
    return w == 0 || h == 0 ? 0 : h * (1 + (w * bits_per_pixel + 7) / 8);
  };
  if (!c.interlaced) return rows(c.width, c.height);
  static const std::uint64_t kStart[7][2] = {{0, 0}, {4, 0}, {0, 4}, {2, 0},
                                             {0, 2}, {1, 0}, {0, 1}};
  static const std::uint64_t kStep[7][2] = {{8, 8}, {8, 8}, {4, 8}, {4, 4}, {2, 4}, {2, 2}, {1, 2}};
  std::uint64_t total = 0;
  for (int p = 0; p < 7; ++p) {
    const std::uint64_t w = (c.width + kStep[p][0] - 1 - kStart[p][0]) / kStep[p][0];
    const std::uint64_t h = (c.height + kStep[p][1] - 1 - kStart[p][1]) / kStep[p][1];
    total += rows(w, h);
  }
  return total;
}

// The raw mode gpublur asks lodepng for (see png_decode.hpp).
struct OutputMode {
  LodePNGColorType type;
  unsigned bits;
  int channels;
};
OutputMode output_mode(const Chunks& c) {
  const unsigned bits = c.bit_depth == 16 ? 16 : 8;
  switch (c.color_type) {
    case 0:
      return c.transparency ? OutputMode{LCT_GREY_ALPHA, bits, 2} : OutputMode{LCT_GREY, bits, 1};
    case 2:
      return c.transparency ? OutputMode{LCT_RGBA, bits, 4} : OutputMode{LCT_RGB, bits, 3};
    case 3:
      return c.transparency ? OutputMode{LCT_RGBA, 8, 4} : OutputMode{LCT_RGB, 8, 3};
    case 4:
      return {LCT_GREY_ALPHA, bits, 2};
    default:
      return {LCT_RGBA, bits, 4};
  }
}

// lodepng's zlib hook. Image data (max_output_size 0): exactly `expected` bytes, the size
// filtered_bytes gives. Compressed metadata (iCCP: lodepng sets max_output_size to its limit): any
// size up to that limit. The buffer is malloc'd; lodepng frees it. Non-zero means failure.
struct InflateTarget {
  std::size_t expected = 0;
};

unsigned inflate_with_libdeflate(unsigned char** out, std::size_t* out_size,
                                 const unsigned char* in, std::size_t in_size,
                                 const LodePNGDecompressSettings* settings) {
  const auto* target = static_cast<const InflateTarget*>(settings->custom_context);
  const bool exact = settings->max_output_size == 0;
  std::size_t capacity =
      exact ? target->expected : std::min<std::size_t>(settings->max_output_size, 1 << 16);
  libdeflate_decompressor* inflater = libdeflate_alloc_decompressor();
  if (!inflater) return 1;
  for (;;) {
    std::unique_ptr<unsigned char, FreeDeleter> buffer(
        static_cast<unsigned char*>(std::malloc(capacity == 0 ? 1 : capacity)));
    if (!buffer) break;
    std::size_t actual = 0;
    const libdeflate_result result =
        libdeflate_zlib_decompress(inflater, in, in_size, buffer.get(), capacity, &actual);
    if (result == LIBDEFLATE_SUCCESS && (!exact || actual == capacity)) {
      libdeflate_free_decompressor(inflater);
      *out = buffer.release();
      *out_size = actual;
      return 0;
    }
    if (exact || result != LIBDEFLATE_INSUFFICIENT_SPACE || capacity >= settings->max_output_size) {
      break;
    }
    capacity = std::min(capacity * 4, settings->max_output_size);
  }
  libdeflate_free_decompressor(inflater);
  return 1;
}

Metadata metadata_of(const LodePNGInfo& info, Chunks& chunks) {
  Metadata m;
  if (info.iccp_defined && info.iccp_profile_size > 0) {
    m.icc.assign(info.iccp_profile, info.iccp_profile + info.iccp_profile_size);
  }
  if (looks_like_exif(chunks.exif)) m.exif = std::move(chunks.exif);
  m.xmp = std::move(chunks.xmp);
  if (info.phys_defined && info.phys_x > 0 && info.phys_y > 0) {
    // pHYs counts pixels per metre (unit 1) or states only the aspect ratio (unit 0).
    const bool metre = info.phys_unit == 1;
    m.density = Density{metre ? info.phys_x / 100.0 : info.phys_x,
                        metre ? info.phys_y / 100.0 : info.phys_y,
                        metre ? Density::Unit::kCentimetre : Density::Unit::kNone};
  }
  return m;
}

template <typename Sample>
Raster<Sample> copy_samples(const unsigned char* samples, int width, int height, int channels);

template <>
Image copy_samples(const unsigned char* samples, int width, int height, int channels) {
  return make_raster_from(samples, width, height, channels);
}

template <>
Image16 copy_samples(const unsigned char* samples, int width, int height, int channels) {
  Image16 image = make_raster<std::uint16_t>(width, height, channels);
  for (std::uint16_t& sample : image.pixels) {  // PNG's 16-bit samples are big-endian
    sample = static_cast<std::uint16_t>(samples[0] << 8 | samples[1]);
    samples += 2;
  }
  return image;
}

}  // namespace

DecodedImage decode_png(const std::uint8_t* data, std::size_t size, const DecodeLimits& limits) {
  Chunks chunks = walk_chunks(data, size);
  const OutputMode mode = output_mode(chunks);
  check_image_size({chunks.width, chunks.height, mode.channels, static_cast<int>(mode.bits / 8)},
                   limits);
  const std::uint64_t expected = filtered_bytes(chunks);
  // Deflate expands at most 1032:1 (a 258-byte match in 2 bits), plus the zlib header.
  if (chunks.idat_bytes * 1032 + 1032 < expected) {
    throw IoError("truncated PNG: " + std::to_string(chunks.idat_bytes) +
                  " bytes of image data cannot hold the " + std::to_string(chunks.width) + "x" +
                  std::to_string(chunks.height) + " image the header claims");
  }
  LodeState state;
  InflateTarget target{static_cast<std::size_t>(expected)};
  LodePNGDecoderSettings& decoder = state.get()->decoder;
  decoder.zlibsettings.custom_zlib = inflate_with_libdeflate;
  decoder.zlibsettings.custom_context = &target;
  decoder.ignore_crc = 1;  // as stb_image and browsers; the Adler-32 covers the image data
  decoder.read_text_chunks = 0;
  // Every profile gpublur writes (kMaxIccBytes) and larger ones from other writers, which the
  // output leaves out; past this lodepng refuses the file (a bomb's profile inflates without end).
  decoder.max_icc_size = 64u << 20;
  state.get()->info_raw.colortype = mode.type;
  state.get()->info_raw.bitdepth = mode.bits;
  unsigned char* raw = nullptr;
  unsigned width = 0, height = 0;
  const unsigned error = lodepng_decode(&raw, &width, &height, state.get(), data, size);
  const std::unique_ptr<unsigned char, FreeDeleter> samples(raw);
  if (error != 0 || !samples) {
    throw IoError(std::string("damaged PNG: ") + lodepng_error_text(error));
  }
  DecodedImage result;
  result.format = ImageFormat::kPng;
  const int w = static_cast<int>(width), h = static_cast<int>(height);
  if (mode.bits == 8) {
    result.image = copy_samples<std::uint8_t>(samples.get(), w, h, mode.channels);
  } else {
    result.image = copy_samples<std::uint16_t>(samples.get(), w, h, mode.channels);
  }
  result.metadata = metadata_of(state.get()->info_png, chunks);
  return result;
}

}  // namespace gpublur
