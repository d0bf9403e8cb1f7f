// stb_impl.cpp — the one translation unit that compiles stb_image and stb_image_write from
// Debian's libstb-dev headers. Built without the project's warning flags (third-party code).
#include "image.hpp"

#define STBI_MAX_DIMENSIONS \
  65535  // == gpublur::kMaxDimension; stb rejects larger before allocating
#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_WRITE_IMPLEMENTATION
// gpublur writes files itself, atomically, and never calls stb's FILE* writers; they stay
// compiled anyway because this stb puts stbi_write_hdr_to_func under STBI_WRITE_NO_STDIO too.
// PNG is written by png_encode.cpp; stb writes JPEG, BMP, TGA and HDR.

#include <stb_image.h>
#include <stb_image_write.h>

static_assert(STBI_MAX_DIMENSIONS == gpublur::kMaxDimension, "keep stb's limit equal to ours");
