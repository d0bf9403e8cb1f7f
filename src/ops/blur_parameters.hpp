// blur_parameters.hpp — what the user asked the blur to compute, before an image says how many
// channels it has: kernel size and sigma per axis (with the rule that derived them), border,
// alpha handling and linear light. The command line validates them; make_blur_spec turns them
// and an image's channel count into the FilterSpec every blur path computes. Pure.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "base/name_table.hpp"
#include "ops/filter_spec.hpp"

namespace gpublur {

/// One axis' kernel size and sigma, and how they were obtained (for --verbose and --json).
struct AxisSize {
  int size = 1;
  double sigma = 1;
  std::string rule;
};

struct KernelSize {
  AxisSize x;  // horizontal
  AxisSize y;  // vertical
};

/// How an alpha channel (the last of gray+alpha and RGBA) takes part in the blur.
enum class AlphaMode { kPremultiplied, kStraight };

inline constexpr NameTable<AlphaMode, 2> kAlphaNames{{{
    {AlphaMode::kPremultiplied, "premultiplied", "colours weighted by their alpha (default)"},
    {AlphaMode::kStraight, "straight", "every channel on its own, as OpenCV and SciPy do"},
}}};

struct BlurParameters {
  KernelSize size;
  Border border = Border::kClamp;
  std::array<std::uint8_t, 4> border_value{};  // per channel, for Border::kConstant
  AlphaMode alpha = AlphaMode::kPremultiplied;
  bool linear = false;  // blur in linear light (sRGB decoded first, encoded after)
};

/// The spec for an image of `channels` channels: the Gaussian's taps per axis at every precision
/// (gaussian.hpp), border.
/// Whether the blur is premultiplied depends on the image's pixels too; the caller sets it.
FilterSpec make_blur_spec(const BlurParameters& parameters, int channels);

}  // namespace gpublur
