// gif_decode.cpp — giflib's record-by-record reader, so each frame's size is checked before its
// rows are decoded (DGifSlurp would allocate every frame first).
#include "codecs/gif_decode.hpp"

#include <gif_lib.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "base/errors.hpp"

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

// The part of the frame just described that lies on the canvas, as colour indices (1 byte a pixel,
// so the canvas is made once, in its final channels, beside a quarter of its size at most).
struct Frame {
  int left = 0, top = 0, width = 0, height = 0;  // on the canvas
  std::vector<GifPixelType> indices;
};

Frame read_frame(const Gif& gif, int canvas_width, int canvas_height) {
  const GifImageDesc& desc = gif.get()->Image;
  if (desc.Width < 1 || desc.Height < 1 || desc.Width > 65535 || desc.Height > 65535) {
    throw IoError("damaged GIF: a frame of " + std::to_string(desc.Width) + "x" +
                  std::to_string(desc.Height) + " pixels");
  }
  Frame f;
  f.left = std::clamp(desc.Left, 0, canvas_width);
  f.top = std::clamp(desc.Top, 0, canvas_height);
  f.width = std::clamp(desc.Left + desc.Width, 0, canvas_width) - f.left;
  f.height = std::clamp(desc.Top + desc.Height, 0, canvas_height) - f.top;
  f.indices.resize(static_cast<std::size_t>(f.width) * static_cast<std::size_t>(f.height));
  std::vector<GifPixelType> line(static_cast<std::size_t>(desc.Width));
  const auto w = static_cast<std::size_t>(std::max(f.width, 0));
  for (int y : row_order(desc.Height, desc.Interlace)) {
    gif.check(DGifGetLine(gif.get(), line.data(), desc.Width));
    const int cy = desc.Top + y - f.top;
    if (cy < 0 || cy >= f.height || w == 0) continue;
    std::memcpy(f.indices.data() + static_cast<std::size_t>(cy) * w,
                line.data() + (f.left - desc.Left), w);
  }
  return f;
}

// The canvas with the frame drawn on it: RGB where the frame covers it with no transparent pixel,
// else RGBA, transparent black outside the frame.
Image draw_frame(const Gif& gif, const Frame& f, int transparent, int canvas_width,
                 int canvas_height) {
  const ColorMapObject* map =
      gif.get()->Image.ColorMap ? gif.get()->Image.ColorMap : gif.get()->SColorMap;
  if (!map || !map->Colors) throw IoError("damaged GIF: no colour map");
  const bool covers = f.width == canvas_width && f.height == canvas_height;
  const bool opaque =
      covers && std::find(f.indices.begin(), f.indices.end(), transparent) == f.indices.end();
  Image canvas = make_image(canvas_width, canvas_height, opaque ? 3 : 4);
  const auto c = static_cast<std::size_t>(canvas.channels);
  for (int y = 0; y < f.height; ++y) {
    const GifPixelType* index =
        f.indices.data() + static_cast<std::size_t>(y) * static_cast<std::size_t>(f.width);
    std::uint8_t* px = canvas.pixels.data() +
                       static_cast<std::size_t>(f.top + y) * canvas.row_samples() +
                       static_cast<std::size_t>(f.left) * c;
    for (int x = 0; x < f.width; ++x, px += c) {
      if (index[x] == transparent) continue;
      const GifColorType colour =
          index[x] < map->ColorCount ? map->Colors[index[x]] : GifColorType{0, 0, 0};
      px[0] = colour.Red, px[1] = colour.Green, px[2] = colour.Blue;
      if (c == 4) px[3] = 255;
    }
  }
  return canvas;
}

}  // namespace

DecodedImage decode_gif(const std::uint8_t* data, std::size_t size, const DecodeLimits& limits) {
  Gif gif(data, size);
  const int width = gif.get()->SWidth, height = gif.get()->SHeight;
  check_image_size({width, height, 4, 1}, limits);  // RGBA at most
  int transparent = -1;
  for (;;) {
    GifRecordType type = UNDEFINED_RECORD_TYPE;
    gif.check(DGifGetRecordType(gif.get(), &type));
    if (type == EXTENSION_RECORD_TYPE) {
      transparent = read_extension(gif, transparent);
    } else if (type == IMAGE_DESC_RECORD_TYPE) {
      gif.check(DGifGetImageDesc(gif.get()));
      const Frame frame = read_frame(gif, width, height);
      DecodedImage result;
      result.format = ImageFormat::kGif;
      result.image = draw_frame(gif, frame, transparent, width, height);
      return result;
    } else if (type == TERMINATE_RECORD_TYPE) {
      throw IoError("damaged GIF: no image in the file");
    }
  }
}

}  // namespace gpublur
