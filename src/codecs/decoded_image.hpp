// decoded_image.hpp — an image as a decoder gives it: 8-bit, 16-bit or floating-point samples,
// the format it came in, and its metadata.
#pragma once

#include <string>

#include "codecs/encode_options.hpp"
#include "codecs/image_format.hpp"
#include "image/image.hpp"
#include "image/metadata.hpp"

namespace gpublur {

struct DecodedImage {
  int bits = 8;  // 8: `image` holds the pixels; 16: `image16`; 32 (HDR, float): `imagef`
  Image image;
  Image16 image16;
  ImageF imagef;
  ImageFormat format = ImageFormat::kPng;
  Metadata metadata;
  /// A JPEG's chroma subsampling (kAuto for other formats), which a JPEG output keeps by default.
  ChromaSubsampling subsampling = ChromaSubsampling::kAuto;
  /// Non-empty when the pipeline converted the image, e.g. HDR reduced to 8 bits.
  std::string conversion;

  int width() const { return bits == 32 ? imagef.width : bits == 16 ? image16.width : image.width; }
  int height() const {
    return bits == 32 ? imagef.height : bits == 16 ? image16.height : image.height;
  }
  int channels() const {
    return bits == 32 ? imagef.channels : bits == 16 ? image16.channels : image.channels;
  }
};

}  // namespace gpublur
