// srgb.hpp — the sRGB transfer curve (IEC 61966-2-1), for blurring in linear light (--linear).
// Colour channels go to 16-bit linear light and back with nearest rounding; alpha (the last
// channel of gray+alpha and RGBA) is not a colour and keeps its value. Pure; thread-safe.
// 8-bit sRGB survives decode + encode exactly; 16-bit sRGB loses up to 7 units (of 65535) in
// the curve's linear toe, where 16-bit linear steps are 13 sRGB steps apart.
#pragma once

#include "image/image.hpp"

namespace gpublur {

/// sRGB-encoded value in [0, 1] to linear light in [0, 1], and back.
double srgb_to_linear(double encoded);
double linear_to_srgb(double linear);

/// 8- or 16-bit sRGB to 16-bit linear light (alpha widened: a * 257 or kept).
Image16 decode_srgb(const Image& image);
Image16 decode_srgb(const Image16& image);

/// 16-bit linear light to 8- or 16-bit sRGB, rounded to nearest (alpha narrowed or kept).
Image encode_srgb8(const Image16& linear);
Image16 encode_srgb16(const Image16& linear);

}  // namespace gpublur
