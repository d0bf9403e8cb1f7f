// prepared_image.hpp — one decoded image made ready to blur, and the blurred result made ready to
// encode. The samples go to the depth the output keeps (16 bits become 8, and HDR becomes 8 bits,
// where the output's format cannot hold them), into 16-bit linear light for --linear, and the spec
// says what the blur computes (premultiplied where the image has transparency). The same steps for
// the CPU and the GPU, so both write the same bytes. Pure; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "codecs/decoded_image.hpp"
#include "codegen/kernel_schedule.hpp"
#include "ops/blur_parameters.hpp"

namespace gpublur {

struct PreparedImage {
  SampleFormat format = SampleFormat::k8;  // the samples the blur runs on
  BlurSpec spec;
  Image image;      // format k8
  Image16 image16;  // format k16 (16-bit images, and every --linear blur)
  ImageF imagef;    // format kFloat
  /// --linear: the blurred linear light goes back to sRGB of this many bits (8 or 16); 0: none.
  int srgb_bits = 0;
  std::vector<std::string> notes;  // conversions made, for --verbose
  std::string warning;             // a conversion that loses what the input held (always said)
};

/// Prepares `decoded` (moved from) for an output of `output` format. Throws UsageError where the
/// blur cannot be done as asked (--linear on an image kept as HDR).
PreparedImage prepare_image(DecodedImage&& decoded, const BlurParameters& parameters,
                            ImageFormat output);

/// The blurred image, in the samples the output is written with.
struct FinishedImage {
  int bits = 8;  // 8: image, 16: image16, 32: imagef
  Image image;
  Image16 image16;
  ImageF imagef;
};

/// After the blur: --linear's linear light encoded back to sRGB; the rest moved as it is.
FinishedImage finish_image(PreparedImage&& prepared);

/// What identifies the kernel a prepared image needs among those of one command (the spec is the
/// same for all but these): channels, samples, premultiplied alpha, linear light.
std::string kernel_key(const PreparedImage& prepared);

}  // namespace gpublur
