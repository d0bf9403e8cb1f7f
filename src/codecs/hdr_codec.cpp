// hdr_codec.cpp — Radiance's text header, RGBE pixels and run-length scanlines.
#include "codecs/hdr_codec.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "base/byte_reader.hpp"
#include "base/errors.hpp"

namespace gpublur {
namespace {

std::string read_line(ByteReader& r) {
  std::string line;
  while (!r.at_end()) {
    const char c = static_cast<char>(r.u8());
    if (c == '\n') return line;
    if (line.size() > 4096) throw IoError("HDR header line too long");
    line += c;
  }
  throw IoError("truncated HDR header");
}

struct Size {
  long width = 0, height = 0;
};

Size read_header(ByteReader& r) {
  const std::string magic = read_line(r);
  if (magic != "#?RADIANCE" && magic != "#?RGBE") throw IoError("not a Radiance HDR file");
  for (;;) {
    const std::string line = read_line(r);
    if (line.empty()) break;
    if (line.rfind("FORMAT=", 0) == 0 && line != "FORMAT=32-bit_rle_rgbe") {
      throw IoError("HDR of " + line.substr(0, 40) + ": only 32-bit_rle_rgbe is supported");
    }
  }
  const std::string resolution = read_line(r);
  Size s;
  char y_axis[3] = {}, x_axis[3] = {};
  if (std::sscanf(resolution.c_str(), "%2s %ld %2s %ld", y_axis, &s.height, x_axis, &s.width) !=
          4 ||
      std::strcmp(y_axis, "-Y") != 0 || std::strcmp(x_axis, "+X") != 0) {
    throw IoError("HDR orientation other than -Y +X: not supported");
  }
  return s;
}

// One RGBE pixel to floats, as stb_image does.
void rgbe_to_float(const std::uint8_t* rgbe, float* out) {
  if (rgbe[3] == 0) {
    out[0] = out[1] = out[2] = 0.0f;
    return;
  }
  const float f = std::ldexp(1.0f, rgbe[3] - (128 + 8));
  for (int k = 0; k < 3; ++k) out[k] = static_cast<float>(rgbe[k]) * f;
}

// A run-length encoded scanline: its 4 components one after another, each in runs (a count above
// 128: count - 128 copies of one byte) and literals (count bytes).
void read_rle_scanline(ByteReader& r, std::uint8_t* line, std::size_t width) {
  for (std::size_t k = 0; k < 4; ++k) {
    std::size_t x = 0;
    while (x < width) {
      std::size_t count = r.u8();
      const bool run = count > 128;
      if (run) count -= 128;
      if (count == 0 || count > width - x) throw IoError("damaged HDR scanline");
      if (run) {
        const std::uint8_t v = r.u8();
        for (std::size_t i = 0; i < count; ++i) line[(x + i) * 4 + k] = v;
      } else {
        const std::uint8_t* bytes = r.take(count);
        for (std::size_t i = 0; i < count; ++i) line[(x + i) * 4 + k] = bytes[i];
      }
      x += count;
    }
  }
}

void put_line(std::vector<std::uint8_t>& out, const std::string& s) {
  out.insert(out.end(), s.begin(), s.end());
  out.push_back('\n');
}

void float_to_rgbe(const float* v, std::uint8_t* rgbe) {
  float c[3];
  for (int k = 0; k < 3; ++k) c[k] = std::isfinite(v[k]) && v[k] > 0 ? v[k] : 0.0f;
  const float max = std::max(c[0], std::max(c[1], c[2]));
  if (!(max >= 1e-32f)) {
    rgbe[0] = rgbe[1] = rgbe[2] = rgbe[3] = 0;
    return;
  }
  int exponent = 0;
  const float normalize = static_cast<float>(std::frexp(max, &exponent)) * 256.0f / max;
  for (int k = 0; k < 3; ++k)
    rgbe[k] = static_cast<std::uint8_t>(std::min(255.0f, c[k] * normalize));
  rgbe[3] = static_cast<std::uint8_t>(std::clamp(exponent + 128, 0, 255));
}

// One component of a scanline, run-length encoded: runs of 4 or more equal bytes, literals of up
// to 128 between them.
void write_rle_component(std::vector<std::uint8_t>& out, const std::uint8_t* line,
                         std::size_t width, std::size_t k) {
  const auto at = [&](std::size_t x) { return line[x * 4 + k]; };
  std::size_t x = 0;
  while (x < width) {
    std::size_t run_start = x, run = 0;
    while (run_start < width) {  // the next run of 4 or more
      run = 1;
      while (run_start + run < width && run < 127 && at(run_start + run) == at(run_start)) ++run;
      if (run >= 4) break;
      run_start += run;
      run = 0;
    }
    while (x < run_start) {  // literals before it
      const std::size_t n = std::min<std::size_t>(128, run_start - x);
      out.push_back(static_cast<std::uint8_t>(n));
      for (std::size_t i = 0; i < n; ++i) out.push_back(at(x + i));
      x += n;
    }
    if (run >= 4) {
      out.push_back(static_cast<std::uint8_t>(128 + run));
      out.push_back(at(run_start));
      x = run_start + run;
    }
  }
}

}  // namespace

DecodedImage decode_hdr(const std::uint8_t* data, std::size_t size, const DecodeLimits& limits) {
  ByteReader r(data, size);
  const Size s = read_header(r);
  check_image_size({s.width, s.height, 3, 4}, limits);
  const auto w = static_cast<std::size_t>(s.width), h = static_cast<std::size_t>(s.height);
  const bool rle_width = w >= 8 && w < 32768;
  // Run-length scanlines take at least 4 bytes and 2 per 127 samples of each component.
  check_data_holds(r.remaining(), rle_width ? h * (4 + 8 * ((w + 126) / 127)) : h * w * 4,
                   "scanlines");
  DecodedImage result;
  result.format = ImageFormat::kHdr;
  result.image = make_raster<float>(static_cast<int>(w), static_cast<int>(h), 3);
  ImageF& image = result.image.get<ImageF>();
  std::vector<std::uint8_t> line(w * 4);
  bool flat = !rle_width;
  for (std::size_t y = 0; y < h; ++y) {
    if (!flat) {
      const std::uint8_t* start = r.take(4);
      if (start[0] != 2 || start[1] != 2 || (start[2] & 0x80)) {
        if (y != 0) throw IoError("damaged HDR scanline");
        flat = true;  // a flat file: the 4 bytes were the first pixel
        r.seek(r.position() - 4);
        check_data_holds(r.remaining(), h * w * 4, "pixels");
      } else if ((std::size_t{start[2]} << 8 | start[3]) != w) {
        throw IoError("damaged HDR scanline");
      }
    }
    if (flat) {
      std::memcpy(line.data(), r.take(w * 4), w * 4);
    } else {
      read_rle_scanline(r, line.data(), w);
    }
    float* out = image.pixels.data() + y * w * 3;
    for (std::size_t x = 0; x < w; ++x) rgbe_to_float(&line[x * 4], out + x * 3);
  }
  return result;
}

std::vector<std::uint8_t> encode_hdr(const ImageF& image) {
  std::vector<std::uint8_t> out;
  put_line(out, "#?RADIANCE");
  put_line(out, "# Written by gpublur");
  put_line(out, "FORMAT=32-bit_rle_rgbe");
  put_line(out, "");
  put_line(out, "-Y " + std::to_string(image.height) + " +X " + std::to_string(image.width));
  const auto w = static_cast<std::size_t>(image.width),
             c = static_cast<std::size_t>(image.channels);
  const bool rle = w >= 8 && w < 32768;
  std::vector<std::uint8_t> line(w * 4);
  for (std::size_t y = 0; y < static_cast<std::size_t>(image.height); ++y) {
    for (std::size_t x = 0; x < w; ++x) {
      const float* px = &image.pixels[(y * w + x) * c];
      const float rgb[3] = {px[0], px[c >= 3 ? 1 : 0], px[c >= 3 ? 2 : 0]};
      float_to_rgbe(rgb, &line[x * 4]);
    }
    if (!rle) {
      out.insert(out.end(), line.begin(), line.end());
      continue;
    }
    out.insert(out.end(), {2, 2, static_cast<std::uint8_t>(w >> 8), static_cast<std::uint8_t>(w)});
    for (std::size_t k = 0; k < 4; ++k) write_rle_component(out, line.data(), w, k);
  }
  return out;
}

}  // namespace gpublur
