// image.cpp — shape validation for images.
#include "image/image.hpp"

#include <string>

namespace gpublur {

void check_shape(int width, int height, int channels) {
  if (width < 1 || height < 1 || width > kMaxDimension || height > kMaxDimension) {
    throw IoError("unsupported image size " + std::to_string(width) + "x" + std::to_string(height) +
                  ": each side must be 1.." + std::to_string(kMaxDimension) + " pixels");
  }
  if (channels < 1 || channels > 4) {
    throw IoError("unsupported channel count " + std::to_string(channels) + ": expected 1 to 4");
  }
}

}  // namespace gpublur
