// blur_spec.hpp — what a blur computes: taps per axis, channels, border. Not how (see codegen).
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "border.hpp"
#include "weights.hpp"

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
};

}  // namespace gpublur
