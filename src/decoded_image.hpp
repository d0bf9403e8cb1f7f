// decoded_image.hpp — an image as a decoder gives it: 8-bit, 16-bit or floating-point samples.
#pragma once

#include <string>

#include "image.hpp"

namespace gpublur {

struct ReadImage {
  int bits = 8;  // 8: `image` holds the pixels; 16: `image16`; 32 (HDR, float): `imagef`
  Image image;
  Image16 image16;
  ImageF imagef;
  /// Non-empty when the pipeline converted the image, e.g. HDR reduced to 8 bits.
  std::string conversion;
};

}  // namespace gpublur
