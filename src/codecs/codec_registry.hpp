// codec_registry.hpp — every format gpublur reads or writes, one row each: its names, extensions,
// what it holds, its signature, its decoder and its encoders. Reading, writing, --help, the
// messages that list formats and the fuzz targets all read these rows, so a new format is its
// own files and one row in codec_registry.cpp (docs/design.md, "How to add a codec").
// Constant; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <vector>

#include "codecs/decoded_image.hpp"
#include "codecs/encode_options.hpp"
#include "codecs/image_format.hpp"
#include "image/decode_limits.hpp"
#include "image/image.hpp"
#include "image/metadata.hpp"

namespace gpublur {

/// Whether a file's first `size` bytes (at least its first 4 KiB, where it is that long) are the
/// format's; `path` names the file, for a format with no signature (TGA).
using Sniff = bool (*)(const std::uint8_t* bytes, std::size_t size, std::string_view path);

/// The whole file's bytes decoded, with the size checked against `limits` before any pixel is
/// allocated. Throws IoError saying why a file is refused.
using Decode = DecodedImage (*)(const std::uint8_t* data, std::size_t size,
                                const DecodeLimits& limits);

/// How a format writes samples of one depth; both null where it cannot hold them.
template <typename Sample>
struct Encoder {
  using Bytes = std::vector<std::uint8_t>;
  Bytes (*encode)(const Raster<Sample>& image, const EncodeOptions& options,
                  const Metadata& metadata) = nullptr;
  /// Optional: the same, freeing the image's samples as soon as the encoder is done with them
  /// (PNG: once its rows are filtered). Null: encode, then free.
  Bytes (*consume)(Raster<Sample>&& image, const EncodeOptions& options,
                   const Metadata& metadata) = nullptr;
};

struct Codec {
  ImageFormat format = ImageFormat::kPng;
  std::string_view name;        // --format's name, messages, --json, fuzz targets: "jpeg"
  std::string_view label;       // how lists for people name it: "JPEG"
  std::string_view extensions;  // lower case, by spaces; the first is written for --format
  std::string_view reads;       // what --help says is read, where more than the label
  std::string_view writes;      // what --help says is written, where more than the first extension
  /// What its files hold; writable, sixteen_bit and floating_point say which encoders it has.
  FormatTraits traits;
  Sniff sniff = nullptr;
  bool sniff_last = false;  // no signature: tried only after every format that has one
  Decode decode = nullptr;
  Encoder<std::uint8_t> encode8;
  Encoder<std::uint16_t> encode16;
  Encoder<float> encode_float;

  template <typename Sample>
  constexpr const Encoder<Sample>& encoder() const {
    if constexpr (std::is_same_v<Sample, float>) {
      return encode_float;
    } else if constexpr (std::is_same_v<Sample, std::uint16_t>) {
      return encode16;
    } else {
      static_assert(std::is_same_v<Sample, std::uint8_t>, "8-bit, 16-bit or float samples");
      return encode8;
    }
  }
};

/// Every format, in the order lists show them (the ImageFormat enum's).
const std::vector<Codec>& codecs();

/// The row of `format`.
const Codec& codec_of(ImageFormat format);

/// The row named `name` ("png"); nullptr for none.
const Codec* find_codec(std::string_view name);

}  // namespace gpublur
