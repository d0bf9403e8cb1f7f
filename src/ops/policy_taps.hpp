// policy_taps.hpp — the numbers an arithmetic policy (kernels/arithmetic.cuh) sums and finishes
// with, looked up in the spec: one axis' taps (the 2^16 integers, the 2^24 ones, or the real
// taps), a matrix's weights and finishing numbers, an unsharp mask's. Shared by the CPU twin and
// codegen, so both bake in the same numbers.
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

/// The matrix a Matrix8, Matrix16 or MatrixFloat policy sums with (its weights, or column and
/// row), whose `scale` or `offset` its finish takes.
template <typename Policy>
const auto& policy_matrix(const MatrixNumbers& matrix) {
  if constexpr (std::is_same_v<Policy, gb_arith::Matrix8>) {
    return matrix.q8;
  } else if constexpr (std::is_same_v<Policy, gb_arith::Matrix16>) {
    return matrix.q16;
  } else {
    static_assert(std::is_same_v<Policy, gb_arith::MatrixFloat>, "a matrix policy");
    return matrix.real;
  }
}

/// The finishing numbers of a matrix policy.
template <typename Policy>
const typename Policy::Numbers& matrix_finish(const MatrixNumbers& matrix) {
  if constexpr (std::is_same_v<Policy, gb_arith::MatrixFloat>) {
    return matrix.real.offset;
  } else {
    return policy_matrix<Policy>(matrix).scale;
  }
}

/// The finishing numbers of an unsharp policy (Unsharp8, Unsharp16, UnsharpFloat).
template <typename Policy>
const typename Policy::Numbers& unsharp_finish(const UnsharpNumbers& unsharp) {
  if constexpr (std::is_same_v<Policy, gb_arith::Unsharp8>) {
    return unsharp.q8;
  } else if constexpr (std::is_same_v<Policy, gb_arith::Unsharp16>) {
    return unsharp.q16;
  } else {
    static_assert(std::is_same_v<Policy, gb_arith::UnsharpFloat>, "an unsharp policy");
    return unsharp.real;
  }
}

}  // namespace gpublur
