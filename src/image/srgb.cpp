// srgb.cpp — tables for the sRGB curve: 256 entries to decode 8-bit, 65536 for everything else.
#include "image/srgb.hpp"

#include <cmath>
#include <vector>

namespace gpublur {
namespace {

bool is_alpha(std::size_t sample, int channels) {
  return (channels == 2 || channels == 4) &&
         sample % static_cast<std::size_t>(channels) == static_cast<std::size_t>(channels - 1);
}

std::uint16_t to_16(double unit) { return static_cast<std::uint16_t>(std::lround(unit * 65535.0)); }
std::uint8_t to_8(double unit) { return static_cast<std::uint8_t>(std::lround(unit * 255.0)); }

// table[v] = f(v / (size - 1)) rounded to `Out`'s range.
template <typename Out, typename F>
std::vector<Out> make_table(std::size_t size, F f) {
  std::vector<Out> table(size);
  for (std::size_t v = 0; v < size; ++v)
    table[v] = f(static_cast<double>(v) / static_cast<double>(size - 1));
  return table;
}

template <typename Out, typename In>
Raster<Out> map_colour(const Raster<In>& in, const std::vector<Out>& table, Out (*alpha)(In)) {
  Raster<Out> out = make_raster<Out>(in.width, in.height, in.channels);
  for (std::size_t i = 0; i < in.pixels.size(); ++i) {
    out.pixels[i] = is_alpha(i, in.channels) ? alpha(in.pixels[i]) : table[in.pixels[i]];
  }
  return out;
}

std::uint16_t widen(std::uint8_t a) { return static_cast<std::uint16_t>(a * 257); }
std::uint16_t keep(std::uint16_t a) { return a; }
std::uint8_t narrow(std::uint16_t a) {
  return static_cast<std::uint8_t>((a * 255u + 32767u) / 65535u);
}

}  // namespace

double srgb_to_linear(double encoded) {
  return encoded <= 0.04045 ? encoded / 12.92 : std::pow((encoded + 0.055) / 1.055, 2.4);
}

double linear_to_srgb(double linear) {
  return linear <= 0.0031308 ? 12.92 * linear : 1.055 * std::pow(linear, 1.0 / 2.4) - 0.055;
}

Image16 decode_srgb(const Image& image) {
  static const auto table =
      make_table<std::uint16_t>(256, [](double s) { return to_16(srgb_to_linear(s)); });
  return map_colour(image, table, widen);
}

Image16 decode_srgb(const Image16& image) {
  static const auto table =
      make_table<std::uint16_t>(65536, [](double s) { return to_16(srgb_to_linear(s)); });
  return map_colour(image, table, keep);
}

Image encode_srgb8(const Image16& linear) {
  static const auto table =
      make_table<std::uint8_t>(65536, [](double l) { return to_8(linear_to_srgb(l)); });
  return map_colour(linear, table, narrow);
}

Image16 encode_srgb16(const Image16& linear) {
  static const auto table =
      make_table<std::uint16_t>(65536, [](double l) { return to_16(linear_to_srgb(l)); });
  return map_colour(linear, table, keep);
}

}  // namespace gpublur
