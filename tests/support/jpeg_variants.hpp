// jpeg_variants.hpp — test support: JPEGs of the kinds gpublur's encoder never writes
// (progressive, restart markers, CMYK, arithmetic-coded, 4:4:0), written with libjpeg-turbo's
// API directly, for the tests of which decoder takes which file.
#pragma once

#include <cstdint>
#include <vector>

#include "image/image.hpp"

namespace gpublur::test {

struct JpegVariant {
  int quality = 95;
  int h = 1, v = 1;  // the luma's sampling factors: 1,1 is 4:4:4; 2,1 4:2:2; 2,2 4:2:0; 1,2 4:4:0
  bool progressive = false;
  int restart_rows = 0;  // a restart marker every this many MCU rows
  bool cmyk = false;     // the RGB image written as (uninverted) CMYK
  bool arithmetic = false;
};

/// `image` (8-bit gray or RGB) as a JPEG of `variant`.
std::vector<std::uint8_t> write_jpeg_variant(const Image& image, const JpegVariant& variant);

}  // namespace gpublur::test
