// policy_taps.hpp — one axis' taps in the type an arithmetic policy (kernels/arithmetic.cuh) sums
// with, looked up in the spec: the 2^16 integers, the 2^24 ones, or the real taps. Shared by the
// CPU blur and codegen, so both bake in the same numbers.
#pragma once

#include <type_traits>
#include <vector>

#include "ops/filter_spec.hpp"
#include "ops/weights.hpp"

namespace gpublur {

template <typename Policy>
const std::vector<typename Policy::Tap>& policy_taps(const AxisTaps& axis) {
  if constexpr (std::is_floating_point_v<typename Policy::Tap>) {
    return axis.real;
  } else if constexpr (Policy::kTapBits == kWeightBits) {
    return axis.q16;
  } else {
    static_assert(Policy::kTapBits == kWeightBits16, "taps of 2^16 or 2^24");
    return axis.q24;
  }
}

}  // namespace gpublur
