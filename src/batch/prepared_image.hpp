// prepared_image.hpp — one decoded image made ready to blur, and the blurred result made ready to
// encode. The samples go to the depth the output keeps (16 bits become 8, and HDR becomes 8 bits,
// where the output's format cannot hold them), into 16-bit linear light for --linear, and the spec
// says what the blur computes (premultiplied where the image has transparency). The same steps for
// the CPU and the GPU, so both write the same bytes. Pure; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "codecs/decoded_image.hpp"
#include "image/any_image.hpp"
#include "ops/blur_parameters.hpp"
#include "ops/blur_spec.hpp"

namespace gpublur {

struct PreparedImage {
  BlurSpec spec;
  /// The samples the blur runs on: 8-bit, 16-bit (16-bit images, and every --linear blur) or
  /// floating-point. An image the GPU's codec decodes has its shape here, not yet its samples.
  AnyImage image;
  /// --linear: the blurred linear light goes back to sRGB of this many bits (8 or 16); 0: none.
  int srgb_bits = 0;
  std::vector<std::string> notes;  // conversions made, for --verbose
  std::string warning;             // a conversion that loses what the input held (always said)
};

/// Prepares `decoded` (moved from) for an output of `output` format. Throws UsageError where the
/// blur cannot be done as asked (--linear on an image kept as HDR).
PreparedImage prepare_image(DecodedImage&& decoded, const BlurParameters& parameters,
                            ImageFormat output);

/// After the blur, the image in the samples the output is written with: --linear's linear light
/// encoded back to sRGB; the rest moved as it is.
AnyImage finish_image(PreparedImage&& prepared);

/// What identifies the kernel a prepared image needs among those of one command (the spec is the
/// same for all but these): channels, samples, premultiplied alpha, linear light.
std::string kernel_key(const PreparedImage& prepared);

}  // namespace gpublur
