// jpeg_variants.cpp — libjpeg's compressor on memory, for tests (errors abort the test binary:
// the inputs are ours).
#include "support/jpeg_variants.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include <jpeglib.h>

namespace gpublur::test {

std::vector<std::uint8_t> write_jpeg_variant(const Image& image, const JpegVariant& variant) {
  jpeg_compress_struct cinfo{};
  jpeg_error_mgr errors{};
  cinfo.err = jpeg_std_error(&errors);
  jpeg_create_compress(&cinfo);
  unsigned char* buffer = nullptr;
  unsigned long size = 0;
  jpeg_mem_dest(&cinfo, &buffer, &size);
  cinfo.image_width = static_cast<JDIMENSION>(image.width);
  cinfo.image_height = static_cast<JDIMENSION>(image.height);
  const bool gray = image.channels == 1;
  cinfo.input_components = variant.cmyk ? 4 : gray ? 1 : 3;
  cinfo.in_color_space = variant.cmyk ? JCS_CMYK : gray ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(&cinfo);
  jpeg_set_quality(&cinfo, variant.quality, TRUE);
  if (!gray && !variant.cmyk) {
    cinfo.comp_info[0].h_samp_factor = variant.h;
    cinfo.comp_info[0].v_samp_factor = variant.v;
  }
  if (variant.progressive) jpeg_simple_progression(&cinfo);
  cinfo.restart_in_rows = variant.restart_rows;
  cinfo.arith_code = variant.arithmetic ? TRUE : FALSE;
  jpeg_start_compress(&cinfo, TRUE);
  std::vector<std::uint8_t> row(static_cast<std::size_t>(image.width) * 4);
  while (cinfo.next_scanline < cinfo.image_height) {
    const std::uint8_t* src = image.pixels.data() + cinfo.next_scanline * image.row_bytes();
    JSAMPROW out = const_cast<JSAMPROW>(src);
    if (variant.cmyk) {
      for (int x = 0; x < image.width; ++x) {
        const std::uint8_t* p = src + 3 * x;
        const int k = 255 - std::max({p[0], p[1], p[2]});
        for (int c = 0; c < 3; ++c)
          row[static_cast<std::size_t>(4 * x + c)] =
              static_cast<std::uint8_t>(k == 255 ? 0 : (255 - p[c] - k) * 255 / (255 - k));
        row[static_cast<std::size_t>(4 * x + 3)] = static_cast<std::uint8_t>(k);
      }
      out = row.data();
    }
    jpeg_write_scanlines(&cinfo, &out, 1);
  }
  jpeg_finish_compress(&cinfo);
  jpeg_destroy_compress(&cinfo);
  std::vector<std::uint8_t> bytes(buffer, buffer + size);
  std::free(buffer);
  return bytes;
}

}  // namespace gpublur::test
