// image_io.cpp — stb wrappers: read from memory, encode to memory, write atomically.
#include "image_io.hpp"

#include <stb_image.h>
#include <stb_image_write.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstring>
#include <fstream>
#include <memory>

#include "atomic_file.hpp"
#include "errors.hpp"
#include "png_decode.hpp"
#include "png_encode.hpp"

namespace gpublur {
namespace {

std::string lower_extension(std::string_view path) {
  const auto slash = path.find_last_of('/');
  const auto dot = path.find_last_of('.');
  if (dot == std::string_view::npos || (slash != std::string_view::npos && dot < slash)) return "";
  std::string ext(path.substr(dot + 1));
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

struct StbFree {
  void operator()(void* p) const noexcept { stbi_image_free(p); }
};

// stb_image_write's output callback: appends to the std::vector<std::uint8_t> in `context`.
void append(void* context, void* data, int size) {
  auto* buffer = static_cast<std::vector<std::uint8_t>*>(context);
  const auto* bytes = static_cast<const std::uint8_t*>(data);
  buffer->insert(buffer->end(), bytes, bytes + size);
}

}  // namespace

std::optional<ImageFormat> format_for_path(std::string_view path) {
  const std::string ext = lower_extension(path);
  if (ext == "png") return ImageFormat::kPng;
  if (ext == "jpg" || ext == "jpeg") return ImageFormat::kJpeg;
  if (ext == "bmp") return ImageFormat::kBmp;
  if (ext == "tga") return ImageFormat::kTga;
  if (ext == "hdr") return ImageFormat::kHdr;
  return std::nullopt;
}

std::vector<std::uint8_t> read_file(const std::string& path) {
  std::ifstream file(path, std::ios::binary | std::ios::ate);
  if (!file) throw IoError("cannot read '" + path + "': " + std::strerror(errno));
  const std::streamoff size = file.tellg();
  if (size < 0) throw IoError("cannot read '" + path + "': not a regular file");
  if (size > INT_MAX) throw IoError("cannot read '" + path + "': file larger than 2 GiB");
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(size));
  file.seekg(0);
  if (!file.read(reinterpret_cast<char*>(bytes.data()), size)) {
    throw IoError("cannot read '" + path + "': " + std::strerror(errno));
  }
  return bytes;
}

int sample_bits(const std::vector<std::uint8_t>& file) {
  if (file.empty() || file.size() > static_cast<std::size_t>(INT_MAX)) return 8;
  const int len = static_cast<int>(file.size());
  if (stbi_is_hdr_from_memory(file.data(), len)) return 32;
  return stbi_is_16_bit_from_memory(file.data(), len) ? 16 : 8;
}

ReadImage read_image(const std::string& path) { return decode_image(read_file(path), path); }

ReadImage decode_image(const std::vector<std::uint8_t>& bytes, const std::string& path) {
  if (bytes.empty()) throw IoError("cannot read '" + path + "': file is empty");
  if (auto png = decode_png_directly(bytes)) return std::move(*png);
  const int len = static_cast<int>(bytes.size());
  const int bits = sample_bits(bytes);
  const bool hdr = bits == 32;
  const bool sixteen = bits == 16;
  int width = 0, height = 0, channels = 0;
  void* decoded = nullptr;
  if (hdr) {
    decoded = stbi_loadf_from_memory(bytes.data(), len, &width, &height, &channels, 0);
  } else if (sixteen) {
    decoded = stbi_load_16_from_memory(bytes.data(), len, &width, &height, &channels, 0);
  } else {
    decoded = stbi_load_from_memory(bytes.data(), len, &width, &height, &channels, 0);
  }
  const std::unique_ptr<void, StbFree> data(decoded);
  if (!data) {
    throw IoError("cannot read '" + path + "': " + stbi_failure_reason() +
                  " (not an image stb_image can decode, or a damaged file)");
  }
  ReadImage result;
  result.bits = bits;
  if (hdr) {
    result.imagef = make_raster_from(static_cast<const float*>(data.get()), width, height, channels);
  } else if (sixteen) {
    result.image16 =
        make_raster_from(static_cast<const std::uint16_t*>(data.get()), width, height, channels);
  } else {
    result.image =
        make_raster_from(static_cast<const std::uint8_t*>(data.get()), width, height, channels);
  }
  return result;
}

Image to_8_bit(const Image16& image) {
  Image out = make_image(image.width, image.height, image.channels);
  for (std::size_t i = 0; i < out.pixels.size(); ++i) {
    out.pixels[i] = static_cast<std::uint8_t>((image.pixels[i] * 255u + 32767u) / 65535u);
  }
  return out;
}

std::vector<std::uint8_t> encode_image(const Image& image, ImageFormat format,
                                       const WriteOptions& options) {
  std::vector<std::uint8_t> out;
  const int w = image.width, h = image.height, c = image.channels;
  const void* pixels = image.pixels.data();
  int ok = 0;
  switch (format) {
    case ImageFormat::kPng:
      return encode_png(image, PngEncoding{options.png_level, 0});
    case ImageFormat::kJpeg:
      ok = stbi_write_jpg_to_func(append, &out, w, h, c, pixels, options.jpeg_quality);
      break;
    case ImageFormat::kBmp:
      ok = stbi_write_bmp_to_func(append, &out, w, h, c, pixels);
      break;
    case ImageFormat::kTga:
      ok = stbi_write_tga_to_func(append, &out, w, h, c, pixels);
      break;
    case ImageFormat::kHdr:
      throw UsageError("an 8-bit image cannot be written as .hdr; HDR output needs HDR input");
  }
  if (!ok) throw IoError("cannot encode the image: stb_image_write failed");
  return out;
}

Image to_8_bit(const ImageF& image) {
  Image out = make_image(image.width, image.height, image.channels);
  const auto c = static_cast<std::size_t>(image.channels);
  const bool has_alpha = c == 2 || c == 4;
  for (std::size_t i = 0; i < out.pixels.size(); ++i) {
    const double v = std::max(0.0, static_cast<double>(image.pixels[i]));
    const double encoded = has_alpha && i % c == c - 1 ? v : std::pow(v, 1.0 / 2.2);
    out.pixels[i] = static_cast<std::uint8_t>(std::lround(std::min(255.0, 255.0 * encoded)));
  }
  return out;
}

std::vector<std::uint8_t> encode_for_path(const ImageF& image, const std::string& path,
                                          const WriteOptions&) {
  if (format_for_path(path) != ImageFormat::kHdr) {
    throw UsageError("cannot write '" + path + "': HDR images are written as .hdr");
  }
  std::vector<std::uint8_t> out;
  if (!stbi_write_hdr_to_func(append, &out, image.width, image.height, image.channels,
                              image.pixels.data())) {
    throw IoError("cannot encode '" + path + "': stb_image_write failed");
  }
  return out;
}

std::vector<std::uint8_t> encode_for_path(const Image16& image, const std::string& path,
                                          const WriteOptions& options) {
  if (format_for_path(path) != ImageFormat::kPng) {
    throw UsageError("cannot write '" + path + "': only PNG keeps 16 bits per sample; use .png");
  }
  return encode_png(image, PngEncoding{options.png_level, 0});
}

std::vector<std::uint8_t> encode_for_path(const Image& image, const std::string& path,
                                          const WriteOptions& options) {
  const auto format = format_for_path(path);
  if (!format) {
    throw UsageError("cannot write '" + path +
                     "': unknown extension; use .png, .jpg, .jpeg, .bmp, .tga or .hdr");
  }
  return encode_image(image, *format, options);
}

template <typename Sample>
void write_image(const Raster<Sample>& image, const std::string& path,
                 const WriteOptions& options) {
  write_file_atomically(path, encode_for_path(image, path, options));
}

template void write_image(const Image&, const std::string&, const WriteOptions&);
template void write_image(const Image16&, const std::string&, const WriteOptions&);
template void write_image(const ImageF&, const std::string&, const WriteOptions&);

}  // namespace gpublur
