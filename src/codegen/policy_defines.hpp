// policy_defines.hpp — what blur_general.cu and matrix_dense.cu need beyond common.cuh's defines,
// for a spec and the image's samples: the arithmetic policy (kernels/arithmetic.cuh) by name, its
// taps (or matrix) as literals of the policy's types, the constant border's pixel in the samples'
// own scale, and for the matrix and the unsharp mask the finishing numbers and whether alpha is
// kept. They are the numbers the CPU twin reads (ops/policy_taps.hpp), so both compute alike.
#pragma once

#include <string>

#include "codegen/kernel_schedule.hpp"
#include "ops/filter_spec.hpp"

namespace gpublur {

struct PolicyDefines {
  std::string defines;
  int mid_bytes = 0;  // kGeneral: bytes of one intermediate sample (the policy's Mid)
};

/// kGeneral's: the Gaussian (straight or premultiplied), the unsharp mask, a matrix of rank one
/// (its row across, its column down). Throws InternalError for a spec kGeneral cannot run.
PolicyDefines general_defines(const FilterSpec& spec, SampleFormat format);

/// kDense's: a matrix's weights, row-major. Throws InternalError for a spec that is no matrix.
PolicyDefines dense_defines(const FilterSpec& spec, SampleFormat format);

/// The finishing numbers and alpha rule of the 8-bit unsharp mask or matrix, for the tensor-core
/// kernel (its taps are in the prelude: the Gaussian's, or the matrix's factors).
std::string mma_finish_defines(const FilterSpec& spec);

}  // namespace gpublur
