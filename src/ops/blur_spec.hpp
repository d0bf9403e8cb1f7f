// blur_spec.hpp — what a blur computes: taps per axis, channels, border. Not how (see codegen).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <type_traits>

#include "ops/border.hpp"
#include "ops/weights.hpp"

namespace gpublur {

struct BlurSpec {
  Weights x;  // horizontal taps
  Weights y;  // vertical taps
  int channels = 3;
  Border border = Border::kClamp;
  std::array<std::uint8_t, 4> border_value{};  // per channel, used by Border::kConstant
  // The same for 16-bit images; unset: border_value * 257. (--linear sets it to the linear-light
  // value of border_value, since the blur then runs on linear samples.)
  std::optional<std::array<std::uint16_t, 4>> border_value16;
  // Blur with premultiplied alpha (the last of 2 or 4 channels): kernels/arithmetic.cuh.
  bool premultiplied = false;
};

/// The constant border's pixel in the samples' own scale: 8-bit values as given, 16-bit ones
/// from border_value16 or else value * 257, floating-point ones value / 255.
template <typename Sample>
std::array<Sample, 4> border_pixel(const BlurSpec& spec) {
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
