// codec_registry.cpp — the formats' rows: each format's facts in one place (as libvips' foreign/
// loaders and savers declare theirs), its code in its own files. A row's order in kCodecs is the
// order lists show (the ImageFormat enum's).
#include "codecs/codec_registry.hpp"

#include <array>
#include <cctype>
#include <cstring>
#include <string>
#include <utility>

#include "base/errors.hpp"
#include "codecs/bmp_codec.hpp"
#include "codecs/gif_decode.hpp"
#include "codecs/hdr_codec.hpp"
#include "codecs/jpeg_codec.hpp"
#include "codecs/png_decode.hpp"
#include "codecs/png_encode.hpp"
#include "codecs/pnm_codec.hpp"
#include "codecs/psd_decode.hpp"
#include "codecs/tga_codec.hpp"
#include "codecs/tiff_codec.hpp"
#include "codecs/webp_codec.hpp"

namespace gpublur {
namespace {

bool starts_with(const std::uint8_t* bytes, std::size_t size, std::string_view prefix) {
  return size >= prefix.size() && std::memcmp(bytes, prefix.data(), prefix.size()) == 0;
}

// A row's FormatTraits by name: traits(kWritable | kAlpha | kIcc).
enum Trait : unsigned {
  kWritable = 1,
  kSixteenBit = 2,
  kFloatingPoint = 4,
  kAlpha = 8,
  kGray = 16,
  kIcc = 32,
  kExif = 64,
  kDensity = 128,
  kXmp = 256,
};
constexpr FormatTraits traits(unsigned t) {
  FormatTraits f;
  f.writable = t & kWritable, f.sixteen_bit = t & kSixteenBit;
  f.floating_point = t & kFloatingPoint, f.alpha = t & kAlpha, f.gray = t & kGray;
  f.icc = t & kIcc, f.exif = t & kExif, f.density = t & kDensity, f.xmp = t & kXmp;
  return f;
}
constexpr unsigned kAllMetadata = kIcc | kExif | kDensity | kXmp;

// A row's names; the rest is set field by field.
constexpr Codec row(ImageFormat format, std::string_view name, std::string_view label,
                    std::string_view extensions) {
  Codec c;
  c.format = format, c.name = name, c.label = label, c.extensions = extensions;
  return c;
}

constexpr Codec png() {
  Codec c = row(ImageFormat::kPng, "png", "PNG", ".png");
  c.traits = traits(kWritable | kSixteenBit | kAlpha | kGray | kAllMetadata);
  c.sniff = [](const std::uint8_t* b, std::size_t n, std::string_view) {
    return starts_with(b, n, "\x89PNG\r\n\x1a\n");
  };
  c.decode = decode_png;
  c.encode8 = {[](const Image& i, const EncodeOptions& o, const Metadata& m) {
                 return encode_png(i, o.png_level, m);
               },
               [](Image&& i, const EncodeOptions& o, const Metadata& m) {
                 return encode_png(std::move(i), o.png_level, m);
               }};
  c.encode16 = {[](const Image16& i, const EncodeOptions& o, const Metadata& m) {
                  return encode_png(i, o.png_level, m);
                },
                [](Image16&& i, const EncodeOptions& o, const Metadata& m) {
                  return encode_png(std::move(i), o.png_level, m);
                }};
  return c;
}

constexpr Codec jpeg() {
  Codec c = row(ImageFormat::kJpeg, "jpeg", "JPEG", ".jpg .jpeg .jpe");
  c.traits = traits(kWritable | kGray | kAllMetadata);
  c.sniff = [](const std::uint8_t* b, std::size_t n, std::string_view) {
    return starts_with(b, n, "\xff\xd8\xff");
  };
  // The file's chroma subsampling comes along: a JPEG output keeps it by default.
  c.decode = [](const std::uint8_t* data, std::size_t size, const DecodeLimits& limits) {
    ChromaSubsampling subsampling = ChromaSubsampling::kAuto;
    DecodedImage image = decode_jpeg(data, size, limits, &subsampling);
    image.subsampling = subsampling;
    return image;
  };
  c.encode8.encode = [](const Image& i, const EncodeOptions& o, const Metadata& m) {
    return encode_jpeg(i, o.jpeg_quality, o.jpeg_subsampling, m);
  };
  return c;
}

constexpr Codec webp() {
  Codec c = row(ImageFormat::kWebp, "webp", "WebP", ".webp");
  c.traits = traits(kWritable | kAlpha | kIcc | kExif | kXmp);
  c.sniff = [](const std::uint8_t* b, std::size_t n, std::string_view) {
    return n >= 12 && starts_with(b, n, "RIFF") && std::memcmp(b + 8, "WEBP", 4) == 0;
  };
  c.decode = decode_webp;
  c.encode8.encode = [](const Image& i, const EncodeOptions& o, const Metadata& m) {
    return encode_webp(i, o.webp_quality, o.webp_lossless, m);
  };
  return c;
}

constexpr Codec tiff() {
  Codec c = row(ImageFormat::kTiff, "tiff", "TIFF", ".tif .tiff");
  // EXIF as directories of tags (exif_tiff.hpp).
  c.traits = traits(kWritable | kSixteenBit | kAlpha | kGray | kAllMetadata);
  c.sniff = [](const std::uint8_t* b, std::size_t n, std::string_view) {
    return starts_with(b, n, std::string_view("II*\0", 4)) ||
           starts_with(b, n, std::string_view("MM\0*", 4));
  };
  c.decode = decode_tiff;
  c.encode8.encode = [](const Image& i, const EncodeOptions& o, const Metadata& m) {
    return encode_tiff(i, m, o.tiff_compression);
  };
  c.encode16.encode = [](const Image16& i, const EncodeOptions& o, const Metadata& m) {
    return encode_tiff(i, m, o.tiff_compression);
  };
  return c;
}

constexpr Codec bmp() {
  Codec c = row(ImageFormat::kBmp, "bmp", "BMP", ".bmp");
  c.traits = traits(kWritable | kAlpha | kDensity);
  c.sniff = [](const std::uint8_t* b, std::size_t n, std::string_view) {
    return starts_with(b, n, "BM");
  };
  c.decode = decode_bmp;
  c.encode8.encode = [](const Image& i, const EncodeOptions&, const Metadata& m) {
    return encode_bmp(i, m);
  };
  return c;
}

// TGA has no signature: its header's fields must be plausible (an image type gpublur reads, a
// colour map only where the type has one, a pixel depth TGA defines), and the path should say .tga.
bool looks_like_tga(const std::uint8_t* b, std::size_t size, std::string_view path) {
  if (size < 18 || format_for_path(path) != ImageFormat::kTga) return false;
  const int map_type = b[1], type = b[2], depth = b[16];
  const bool mapped = type == 1 || type == 9;
  const bool known = mapped || type == 2 || type == 3 || type == 10 || type == 11;
  const bool depth_ok = depth == 8 || depth == 15 || depth == 16 || depth == 24 || depth == 32;
  return known && depth_ok && (map_type == 0 || map_type == 1) && (!mapped || map_type == 1);
}

constexpr Codec tga() {
  Codec c = row(ImageFormat::kTga, "tga", "TGA", ".tga");
  c.traits = traits(kWritable | kAlpha | kGray);
  c.sniff = looks_like_tga;
  c.sniff_last = true;
  c.decode = decode_tga;
  c.encode8.encode = [](const Image& i, const EncodeOptions&, const Metadata&) {
    return encode_tga(i);
  };
  return c;
}

constexpr Codec pnm() {
  Codec c = row(ImageFormat::kPnm, "pnm", "PNM", ".pnm .ppm .pgm .pbm .pam");
  c.reads = "PNM/PAM";
  c.writes = ".pnm/.ppm/.pgm/.pam";
  c.traits = traits(kWritable | kSixteenBit | kAlpha | kGray);
  // 'P', a digit 1-7, then white space.
  c.sniff = [](const std::uint8_t* b, std::size_t n, std::string_view) {
    return n >= 3 && b[0] == 'P' && b[1] >= '1' && b[1] <= '7' && std::isspace(b[2]);
  };
  c.decode = decode_pnm;
  c.encode8.encode = [](const Image& i, const EncodeOptions&, const Metadata&) {
    return encode_pnm(i);
  };
  c.encode16.encode = [](const Image16& i, const EncodeOptions&, const Metadata&) {
    return encode_pnm(i);
  };
  return c;
}

constexpr Codec hdr() {
  Codec c = row(ImageFormat::kHdr, "hdr", "HDR", ".hdr");
  c.reads = "Radiance HDR";
  c.traits = traits(kWritable | kFloatingPoint);
  c.sniff = [](const std::uint8_t* b, std::size_t n, std::string_view) {
    return starts_with(b, n, "#?RADIANCE") || starts_with(b, n, "#?RGBE");
  };
  c.decode = decode_hdr;
  c.encode_float.encode = [](const ImageF& i, const EncodeOptions&, const Metadata&) {
    return encode_hdr(i);
  };
  return c;
}

constexpr Codec gif() {
  Codec c = row(ImageFormat::kGif, "gif", "GIF", ".gif");
  c.reads = "GIF (first frame)";
  c.sniff = [](const std::uint8_t* b, std::size_t n, std::string_view) {
    return starts_with(b, n, "GIF87a") || starts_with(b, n, "GIF89a");
  };
  c.decode = decode_gif;
  return c;
}

constexpr Codec psd() {
  Codec c = row(ImageFormat::kPsd, "psd", "PSD", ".psd");
  c.reads = "PSD (composite)";
  c.sniff = [](const std::uint8_t* b, std::size_t n, std::string_view) {
    return starts_with(b, n, "8BPS");
  };
  c.decode = decode_psd;
  return c;
}

constexpr std::array<Codec, 10> kCodecs = {png(), jpeg(), webp(), tiff(), bmp(),
                                           tga(), pnm(),  hdr(),  gif(),  psd()};

// The traits that say which encoders a row has say it truly, and the rows follow the enum.
constexpr bool rows_agree() {
  for (std::size_t i = 0; i < kCodecs.size(); ++i) {
    const Codec& c = kCodecs[i];
    const bool any = c.encode8.encode || c.encode16.encode || c.encode_float.encode;
    if (static_cast<std::size_t>(c.format) != i || c.traits.writable != any ||
        c.traits.sixteen_bit != (c.encode16.encode != nullptr) ||
        c.traits.floating_point != (c.encode_float.encode != nullptr) || !c.sniff || !c.decode ||
        c.extensions.empty() || c.extensions[0] != '.') {
      return false;
    }
  }
  return true;
}
static_assert(rows_agree(),
              "a codec row's traits disagree with its encoders, or rows are out of "
              "the ImageFormat enum's order");

}  // namespace

const std::vector<Codec>& codecs() {
  static const std::vector<Codec> all(kCodecs.begin(), kCodecs.end());
  return all;
}

const Codec& codec_of(ImageFormat format) {
  const auto i = static_cast<std::size_t>(format);
  if (i >= codecs().size()) throw InternalError("no codec row for format " + std::to_string(i));
  return codecs()[i];
}

const Codec* find_codec(std::string_view name) {
  for (const Codec& codec : codecs()) {
    if (codec.name == name) return &codec;
  }
  return nullptr;
}

}  // namespace gpublur
