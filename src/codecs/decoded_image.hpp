// decoded_image.hpp — an image as a decoder gives it: 8-bit, 16-bit or floating-point samples,
// the format it came in, and its metadata.
#pragma once

#include <string>

#include "codecs/encode_options.hpp"
#include "codecs/image_format.hpp"
#include "image/any_image.hpp"
#include "image/metadata.hpp"

namespace gpublur {

struct DecodedImage {
  AnyImage image;  // 8-bit, 16-bit, or floating-point (HDR) samples, as the file holds them
  ImageFormat format = ImageFormat::kPng;
  Metadata metadata;
  /// A JPEG's chroma subsampling (kAuto for other formats), which a JPEG output keeps by default.
  ChromaSubsampling subsampling = ChromaSubsampling::kAuto;
  /// A TIFF's compression (kNone where its image data is stored as it is, else kDeflate; kAuto
  /// for other formats), which a TIFF output keeps by default.
  TiffCompression tiff_compression = TiffCompression::kAuto;
  /// Non-empty when the pipeline converted the image, e.g. HDR reduced to 8 bits.
  std::string conversion;

  int width() const { return image.width(); }
  int height() const { return image.height(); }
  int channels() const { return image.channels(); }
};

}  // namespace gpublur
