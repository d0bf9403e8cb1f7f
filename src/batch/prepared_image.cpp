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

}  // namespace

PreparedImage prepare_image(DecodedImage&& d, const BlurParameters& parameters,
                            ImageFormat output) {
  PreparedImage r;
  const FormatTraits traits = format_traits(output);
  const std::string name(format_name(output));
  if (d.bits == 32) {
    if (traits.floating_point) {
      if (parameters.linear) throw UsageError("--linear: HDR images are in linear light already");
      r.format = SampleFormat::kFloat;
      r.spec = make_blur_spec(parameters, d.imagef.channels);
      r.imagef = std::move(d.imagef);
      return r;
    }
    d.image = to_8_bit(d.imagef);
    d.imagef = ImageF{};
    d.bits = 8;
    r.warning = "HDR input reduced to 8 bits (gamma 2.2, clamped); write " +
                extensions_where(&FormatTraits::floating_point) + " to keep it";
  } else if (traits.floating_point) {
    const std::string label(format_label(output));
    throw UsageError((d.bits == 8 ? "an 8" : "a " + std::to_string(d.bits)) +
                     "-bit image cannot be written as " + std::string(default_extension(output)) +
                     "; " + label + " output needs " + label + " input");
  }
  if (d.bits == 16 && !traits.sixteen_bit) {
    d.image = to_8_bit(d.image16);
    d.image16 = Image16{};
    d.bits = 8;
    r.notes.push_back("16-bit input converted to 8 bits: " + name + " holds 8 (" +
                      labels_where(&FormatTraits::sixteen_bit) + " keep 16)");
  }
  const int channels = d.bits == 16 ? d.image16.channels : d.image.channels;
  const bool has_alpha = channels == 2 || channels == 4;
  r.spec = make_blur_spec(parameters, channels);
  if (r.spec.keep_alpha) {
    r.notes.push_back("alpha: kept as it is, the colours filtered (--alpha straight filters it)");
  } else if (parameters.alpha == AlphaMode::kPremultiplied && has_alpha) {
    r.spec.premultiplied = d.bits == 16 ? has_transparency(d.image16) : has_transparency(d.image);
    r.notes.push_back(r.spec.premultiplied
                          ? "alpha: premultiplied (--alpha straight to blur it apart)"
                          : "alpha: every pixel is opaque; nothing to premultiply");
  }
  if (has_alpha && !traits.alpha) r.notes.push_back("alpha dropped: " + name + " holds none");
  if (parameters.linear) {
    r.spec.border_value16 = linear_border(r.spec);
    r.image16 = d.bits == 16 ? decode_srgb(d.image16) : decode_srgb(d.image);
    r.srgb_bits = d.bits;
    r.format = SampleFormat::k16;
  } else if (d.bits == 16) {
    r.image16 = std::move(d.image16);
    r.format = SampleFormat::k16;
  } else {
    r.image = std::move(d.image);
    r.format = SampleFormat::k8;
  }
  return r;
}

FinishedImage finish_image(PreparedImage&& p) {
  FinishedImage f;
  if (p.srgb_bits == 8) {
    f.image = encode_srgb8(p.image16);
  } else if (p.srgb_bits == 16) {
    f.bits = 16;
    f.image16 = encode_srgb16(p.image16);
  } else if (p.format == SampleFormat::kFloat) {
    f.bits = 32;
    f.imagef = std::move(p.imagef);
  } else if (p.format == SampleFormat::k16) {
    f.bits = 16;
    f.image16 = std::move(p.image16);
  } else {
    f.image = std::move(p.image);
  }
  return f;
}

std::string kernel_key(const PreparedImage& p) {
  return "c" + std::to_string(p.spec.channels) + "-f" + std::to_string(static_cast<int>(p.format)) +
         (p.spec.premultiplied ? "-premultiplied" : "") + (p.srgb_bits ? "-linear" : "");
}

}  // namespace gpublur
