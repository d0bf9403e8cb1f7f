// gif_decode.cpp — giflib's record-by-record reader, so each frame's size is checked before its
// rows are decoded (DGifSlurp would allocate every frame first).
#include "gif_decode.hpp"

#include <gif_lib.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "errors.hpp"

namespace gpublur {
namespace {

struct Reader {
  const std::uint8_t* data;
  std::size_t size;
  std::size_t pos = 0;
};

int read_func(GifFileType* gif, GifByteType* out, int n) {
  auto* r = static_cast<Reader*>(gif->UserData);
  const std::size_t count = std::min(static_cast<std::size_t>(std::max(n, 0)), r->size - r->pos);
  std::memcpy(out, r->data + r->pos, count);
  r->pos += count;
  return static_cast<int>(count);
}

class Gif {
 public:
  Gif(const std::uint8_t* data, std::size_t size) : reader_{data, size} {
    int error = 0;
    gif_ = DGifOpen(&reader_, read_func, &error);
    if (!gif_) fail(error);
  }
  ~Gif() {
    int error = 0;
    if (gif_) DGifCloseFile(gif_, &error);
  }
  Gif(const Gif&) = delete;
  Gif& operator=(const Gif&) = delete;
  GifFileType* get() const { return gif_; }
  void check(int status) const {
    if (status != GIF_OK) fail(gif_->Error);
  }
  [[noreturn]] static void fail(int error) {
    const char* text = GifErrorString(error);
    throw IoError(std::string("damaged GIF: ") + (text ? text : "unknown error"));
  }

 private:
  Reader reader_;
  GifFileType* gif_ = nullptr;
};

// The transparent colour index a graphics control extension sets, or -1.
int read_extension(const Gif& gif, int transparent) {
  int code = 0;
  GifByteType* block = nullptr;
  gif.check(DGifGetExtension(gif.get(), &code, &block));
  if (code == GRAPHICS_EXT_FUNC_CODE && block && block[0] >= 4) {
    transparent = (block[1] & 1) ? block[4] : -1;
  }
  while (block) gif.check(DGifGetExtensionNext(gif.get(), &block));
  return transparent;
}

// Rows of an interlaced frame come in four passes: every 8th from 0, every 8th from 4, every 4th
// from 2, every 2nd from 1.
std::vector<int> row_order(int height, bool interlaced) {
  std::vector<int> rows;
  if (!interlaced) {
    for (int y = 0; y < height; ++y) rows.push_back(y);
    return rows;
  }
  const int start[4] = {0, 4, 2, 1}, step[4] = {8, 8, 4, 2};
  for (int p = 0; p < 4; ++p) {
    for (int y = start[p]; y < height; y += step[p]) rows.push_back(y);
  }
  return rows;
}

// Draws the frame just described into the RGBA canvas; returns whether it covers the canvas
// with no transparent pixel.
bool draw_frame(const Gif& gif, int transparent, Image& canvas) {
  const GifImageDesc& frame = gif.get()->Image;
  const ColorMapObject* map = frame.ColorMap ? frame.ColorMap : gif.get()->SColorMap;
  if (!map || !map->Colors) throw IoError("damaged GIF: no colour map");
  if (frame.Width < 1 || frame.Height < 1 || frame.Width > 65535 || frame.Height > 65535) {
    throw IoError("damaged GIF: a frame of " + std::to_string(frame.Width) + "x" +
                  std::to_string(frame.Height) + " pixels");
  }
  std::vector<GifPixelType> line(static_cast<std::size_t>(frame.Width));
  bool opaque = frame.Left == 0 && frame.Top == 0 && frame.Width >= canvas.width &&
                frame.Height >= canvas.height;
  for (int y : row_order(frame.Height, frame.Interlace)) {
    gif.check(DGifGetLine(gif.get(), line.data(), frame.Width));
    const int cy = frame.Top + y;
    if (cy < 0 || cy >= canvas.height) continue;
    for (int x = 0; x < frame.Width; ++x) {
      const int cx = frame.Left + x;
      const int index = line[static_cast<std::size_t>(x)];
      if (cx < 0 || cx >= canvas.width) continue;
      if (index == transparent) {
        opaque = false;
        continue;
      }
      const GifColorType colour =
          index < map->ColorCount ? map->Colors[index] : GifColorType{0, 0, 0};
      std::uint8_t* px =
          &canvas.pixels[(static_cast<std::size_t>(cy) * static_cast<std::size_t>(canvas.width) +
                          static_cast<std::size_t>(cx)) *
                         4];
      px[0] = colour.Red, px[1] = colour.Green, px[2] = colour.Blue, px[3] = 255;
    }
  }
  return opaque;
}

Image without_alpha(const Image& rgba) {
  Image rgb = make_image(rgba.width, rgba.height, 3);
  for (std::size_t i = 0, j = 0; i < rgba.pixels.size(); i += 4, j += 3) {
    std::memcpy(&rgb.pixels[j], &rgba.pixels[i], 3);
  }
  return rgb;
}

}  // namespace

DecodedImage decode_gif(const std::uint8_t* data, std::size_t size, const DecodeLimits& limits) {
  Gif gif(data, size);
  check_image_size({gif.get()->SWidth, gif.get()->SHeight, 4, 1}, limits);  // RGBA at most
  Image canvas = make_image(gif.get()->SWidth, gif.get()->SHeight, 4);  // transparent black
  int transparent = -1;
  for (;;) {
    GifRecordType type = UNDEFINED_RECORD_TYPE;
    gif.check(DGifGetRecordType(gif.get(), &type));
    if (type == EXTENSION_RECORD_TYPE) {
      transparent = read_extension(gif, transparent);
    } else if (type == IMAGE_DESC_RECORD_TYPE) {
      gif.check(DGifGetImageDesc(gif.get()));
      DecodedImage result;
      result.format = ImageFormat::kGif;
      const bool opaque = draw_frame(gif, transparent, canvas);
      result.image = opaque ? without_alpha(canvas) : std::move(canvas);
      return result;
    } else if (type == TERMINATE_RECORD_TYPE) {
      throw IoError("damaged GIF: no image in the file");
    }
  }
}

}  // namespace gpublur
