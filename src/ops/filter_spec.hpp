// filter_spec.hpp — what a filter computes, as numbers: the taps of each axis at every precision
// the kernels sum in (kernels/arithmetic.cuh's policies), channels, border, alpha. Made by an
// operation's front end (the Gaussian's: gaussian.hpp) and only read after that: the CPU twin,
// codegen and the reports take their numbers from here, never from the operation's parameters.
// Not how it is computed (see codegen). Plain data.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <vector>

#include "arithmetic.cuh"
#include "ops/border.hpp"
#include "ops/weights.hpp"  // the precisions (kWeightBits, ...) and limits the taps are made to

namespace gpublur {

/// One axis' taps, index 0 at offset -radius, in the type each policy sums them in.
struct AxisTaps {
  int size = 1;                                // odd: 2 * radius + 1 taps in each vector
  std::vector<gb_arith::Straight8::Tap> q16;   // 8-bit images: sum exactly 2^16
  std::vector<gb_arith::Straight16::Tap> q24;  // 16-bit images: sum exactly 2^24
  std::vector<gb_arith::Float::Tap> real;      // floating-point images: sum 1
  double sigma = 0;  // the Gaussian's sigma: a description (--verbose, --json, the prelude's
                     // comment), never read to compute
  int radius() const { return size / 2; }
};

struct FilterSpec {
  AxisTaps x;  // horizontal taps
  AxisTaps y;  // vertical taps
  int channels = 3;
  Border border = Border::kClamp;
  std::array<std::uint8_t, 4> border_value{};  // per channel, used by Border::kConstant
  // The same for 16-bit images; unset: border_value * 257. (--linear sets it to the linear-light
  // value of border_value, since the blur then runs on linear samples.)
  std::optional<std::array<std::uint16_t, 4>> border_value16;
  // Blur with premultiplied alpha (the last of 2 or 4 channels): kernels/arithmetic.cuh.
  bool premultiplied = false;
};

/// The spec's first name, which the GPU layers still use (blur_spec.hpp includes this file).
using BlurSpec = FilterSpec;

/// The constant border's pixel in the samples' own scale: 8-bit values as given, 16-bit ones
/// from border_value16 or else value * 257, floating-point ones value / 255.
template <typename Sample>
std::array<Sample, 4> border_pixel(const FilterSpec& spec) {
  std::array<Sample, 4> pixel{};
  for (std::size_t k = 0; k < 4; ++k) {
    const auto v = spec.border_value[k];
    if constexpr (sizeof(Sample) == 1) {
      pixel[k] = v;
    } else if constexpr (std::is_floating_point_v<Sample>) {
      pixel[k] = static_cast<Sample>(v / 255.0);
    } else {
      pixel[k] = spec.border_value16 ? (*spec.border_value16)[k] : static_cast<Sample>(v * 257);
    }
  }
  return pixel;
}

}  // namespace gpublur
