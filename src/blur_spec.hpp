// blur_spec.hpp — what a blur computes: taps per axis, channels, border. Not how (see codegen).
#pragma once

#include <array>
#include <cstdint>

#include "border.hpp"
#include "weights.hpp"

namespace gpublur {

struct BlurSpec {
  Weights x;  // horizontal taps
  Weights y;  // vertical taps
  int channels = 3;
  Border border = Border::kClamp;
  std::array<std::uint8_t, 4> border_value{};  // per channel, used by Border::kConstant
};

}  // namespace gpublur
