// policy_taps.hpp — one axis' taps in the type an arithmetic policy (kernels/arithmetic.cuh)
// sums with: integers summing to 2^Policy::kTapBits, or the real Gaussian for floating point.
// Shared by the CPU blur and codegen, so both bake in the same numbers.
#pragma once

#include <type_traits>
#include <vector>

#include "ops/weights.hpp"

namespace gpublur {

template <typename Policy>
std::vector<typename Policy::Tap> policy_taps(const Weights& axis) {
  if constexpr (std::is_floating_point_v<typename Policy::Tap>) {
    return gaussian_taps(axis.size, axis.sigma);
  } else {
    if (Policy::kTapBits == kWeightBits) return {axis.taps.begin(), axis.taps.end()};
    const Weights w = make_weights(axis.size, axis.sigma, Policy::kTapBits);
    return {w.taps.begin(), w.taps.end()};
  }
}

}  // namespace gpublur
