// blur_parameters.hpp — what the user asked the filter to compute, before an image says how many
// channels it has: the operation and its parameters (the Gaussian's kernel size and sigma per
// axis with the rule that derived them, a matrix, an unsharp mask's amount and threshold),
// border, alpha handling and linear light. The command line validates them; make_blur_spec turns
// them and an image's channel count into the FilterSpec every path computes. Pure.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "base/name_table.hpp"
#include "ops/filter_spec.hpp"
#include "ops/matrix.hpp"
#include "ops/unsharp.hpp"

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

/// How an alpha channel (the last of gray+alpha and RGBA) takes part in the filter. The matrix
/// and the unsharp mask under kPremultiplied keep alpha as it is and filter the colours.
enum class AlphaMode { kPremultiplied, kStraight };

inline constexpr NameTable<AlphaMode, 2> kAlphaNames{{{
    {AlphaMode::kPremultiplied, "premultiplied",
     "colours weighted by their alpha (default; --matrix and --unsharp: alpha kept as it is)"},
    {AlphaMode::kStraight, "straight", "every channel on its own, as OpenCV and SciPy do"},
}}};

struct BlurParameters {
  Operation operation = Operation::kGaussian;
  KernelSize size;            // kGaussian and kUnsharp
  MatrixParameters matrix;    // kMatrix
  UnsharpParameters unsharp;  // kUnsharp
  Border border = Border::kClamp;
  std::array<std::uint8_t, 4> border_value{};  // per channel, for Border::kConstant
  AlphaMode alpha = AlphaMode::kPremultiplied;
  bool linear = false;  // blur in linear light (sRGB decoded first, encoded after)
};

/// The spec for an image of `channels` channels: the operation's numbers from its front end
/// (gaussian.hpp, matrix.hpp, unsharp.hpp), border, and whether alpha is kept. Throws the front
/// ends' UsageErrors (a matrix past the sums' bounds).
/// Whether the blur is premultiplied depends on the image's pixels too; the caller sets it.
FilterSpec make_blur_spec(const BlurParameters& parameters, int channels);

}  // namespace gpublur
