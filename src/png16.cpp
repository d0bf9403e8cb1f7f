// png16.cpp — libpng's write API. libpng reports errors by longjmp, so the code between setjmp
// and the end of writing holds no objects with destructors; errors become IoError afterwards.
#include "png16.hpp"

#include <png.h>

#include <csetjmp>
#include <cstdio>
#include <string>

#include "errors.hpp"

namespace gpublur {
namespace {

struct WriteState {
  std::vector<std::uint8_t>* out;
  char error[256];
};

void append(png_structp png, png_bytep data, png_size_t size) {
  auto* state = static_cast<WriteState*>(png_get_io_ptr(png));
  state->out->insert(state->out->end(), data, data + size);
}

void on_error(png_structp png, png_const_charp message) {
  auto* state = static_cast<WriteState*>(png_get_error_ptr(png));
  std::snprintf(state->error, sizeof state->error, "%s", message);
  png_longjmp(png, 1);
}

void on_warning(png_structp, png_const_charp) {}

int color_type(int channels) {
  switch (channels) {
    case 1:
      return PNG_COLOR_TYPE_GRAY;
    case 2:
      return PNG_COLOR_TYPE_GRAY_ALPHA;
    case 3:
      return PNG_COLOR_TYPE_RGB;
    default:
      return PNG_COLOR_TYPE_RGBA;
  }
}

// Writes rows to `state`; returns false (with state.error set) on a libpng error.
bool write(const Image16& image, int level, std::vector<png_bytep>& rows, WriteState& state) {
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &state, on_error, on_warning);
  if (!png) return false;
  png_infop info = png_create_info_struct(png);
  if (!info || setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return false;
  }
  png_set_write_fn(png, &state, append, nullptr);
  png_set_compression_level(png, level);
  png_set_IHDR(png, info, static_cast<png_uint_32>(image.width),
               static_cast<png_uint_32>(image.height), 16, color_type(image.channels),
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  png_set_swap(png);  // PNG stores 16-bit samples big-endian; ours are in host (little) order
  png_write_image(png, rows.data());
  png_write_end(png, info);
  png_destroy_write_struct(&png, &info);
  return true;
}

}  // namespace

std::vector<std::uint8_t> encode_png16(const Image16& image, int level) {
  std::vector<std::uint8_t> out;
  std::vector<png_bytep> rows(static_cast<std::size_t>(image.height));
  for (std::size_t y = 0; y < rows.size(); ++y) {
    // libpng takes non-const row pointers but only reads them when writing.
    rows[y] = reinterpret_cast<png_bytep>(
        const_cast<std::uint16_t*>(image.pixels.data() + y * image.row_samples()));
  }
  WriteState state{&out, {}};
  if (!write(image, level, rows, state)) {
    throw IoError(std::string("cannot encode the 16-bit PNG: ") +
                  (state.error[0] ? state.error : "libpng failed"));
  }
  return out;
}

}  // namespace gpublur
