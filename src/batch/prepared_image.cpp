// prepared_image.cpp — depth, alpha and linear-light decisions for one image.
#include "batch/prepared_image.hpp"

#include <cmath>

#include "base/errors.hpp"
#include "codecs/image_encode.hpp"
#include "image/srgb.hpp"

namespace gpublur {
namespace {

// The constant border's value, given in sRGB, as the linear light a --linear blur runs on (alpha
// as it is, widened to 16 bits).
std::array<std::uint16_t, 4> linear_border(const BlurSpec& spec) {
  std::array<std::uint16_t, 4> linear{};
  for (std::size_t c = 0; c < 4; ++c) {
    const bool alpha = (spec.channels == 2 || spec.channels == 4) &&
                       c == static_cast<std::size_t>(spec.channels - 1);
    const double v = spec.border_value[c] / 255.0;
    linear[c] = static_cast<std::uint16_t>(std::lround(65535.0 * (alpha ? v : srgb_to_linear(v))));
  }
  return linear;
}

// Integer samples (8 or 16 bits) with a pixel that is not opaque.
bool transparent(const AnyImage& image) {
  if (image.holds<Image16>()) return has_transparency(image.get<Image16>());
  return has_transparency(image.get<Image>());
}

// 8- or 16-bit sRGB as the 16-bit linear light a --linear blur runs on.
Image16 linear_light(const AnyImage& image) {
  if (image.holds<Image16>()) return decode_srgb(image.get<Image16>());
  return decode_srgb(image.get<Image>());
}

// Converts the image to a depth `output` holds: HDR to 8 bits for a format without floats (with a
// warning), 16 bits to 8 for one without 16 (with a note); refuses integer samples for a format
// that holds only floats.
void fit_depth(AnyImage& image, ImageFormat output, PreparedImage& r) {
  const FormatTraits traits = format_traits(output);
  if (image.holds<ImageF>() && !traits.floating_point) {
    image = to_8_bit(image.get<ImageF>());
    r.warning = "HDR input reduced to 8 bits (gamma 2.2, clamped); write " +
                extensions_where(&FormatTraits::floating_point) + " to keep it";
  } else if (!image.holds<ImageF>() && traits.floating_point) {
    const std::string label(format_label(output));
    throw UsageError((image.bits() == 8 ? "an 8" : "a " + std::to_string(image.bits())) +
                     "-bit image cannot be written as " + std::string(default_extension(output)) +
                     "; " + label + " output needs " + label + " input");
  }
  if (image.holds<Image16>() && !traits.sixteen_bit) {
    image = to_8_bit(image.get<Image16>());
    r.notes.push_back("16-bit input converted to 8 bits: " + std::string(format_name(output)) +
                      " holds 8 (" + labels_where(&FormatTraits::sixteen_bit) + " keep 16)");
  }
}

}  // namespace

PreparedImage prepare_image(DecodedImage&& d, const BlurParameters& parameters,
                            ImageFormat output) {
  PreparedImage r;
  AnyImage& image = d.image;
  fit_depth(image, output, r);
  if (image.holds<ImageF>()) {
    if (parameters.linear) throw UsageError("--linear: HDR images are in linear light already");
    r.spec = make_blur_spec(parameters, image.channels());
    r.image = std::move(image);
    return r;
  }
  const int channels = image.channels();
  const bool has_alpha = channels == 2 || channels == 4;
  r.spec = make_blur_spec(parameters, channels);
  if (r.spec.keep_alpha) {
    r.notes.push_back("alpha: kept as it is, the colours filtered (--alpha straight filters it)");
  } else if (parameters.alpha == AlphaMode::kPremultiplied && has_alpha) {
    r.spec.premultiplied = transparent(image);
    r.notes.push_back(r.spec.premultiplied
                          ? "alpha: premultiplied (--alpha straight to blur it apart)"
                          : "alpha: every pixel is opaque; nothing to premultiply");
  }
  if (has_alpha && !format_traits(output).alpha) {
    r.notes.push_back("alpha dropped: " + std::string(format_name(output)) + " holds none");
  }
  if (parameters.linear) {
    r.spec.border_value16 = linear_border(r.spec);
    r.srgb_bits = image.bits();
    r.image = linear_light(image);
  } else {
    r.image = std::move(image);
  }
  return r;
}

AnyImage finish_image(PreparedImage&& p) {
  if (p.srgb_bits == 0) return std::move(p.image);
  const Image16& linear = p.image.get<Image16>();
  if (p.srgb_bits == 16) return encode_srgb16(linear);
  return encode_srgb8(linear);
}

std::string kernel_key(const PreparedImage& p) {
  return "c" + std::to_string(p.spec.channels) + "-f" +
         std::to_string(static_cast<int>(p.image.sample_format())) +
         (p.spec.premultiplied ? "-premultiplied" : "") + (p.srgb_bits ? "-linear" : "");
}

}  // namespace gpublur
