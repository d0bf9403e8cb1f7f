// matrix_weights.cuh — the weights of a byte-weight matrix kernel (matrix_dp4a.cu,
// matrix_mma.cu): weight(j, i), row j and column i of the prelude's GB_MATRIX, a constant once
// the kernels' loops are unrolled, and the bound both kernels are built on: every weight a signed
// byte, -128 to 127 (codegen checks it before it picks either; the static_assert holds a source
// to it). Needs common.cuh's sizes and the prelude's GB_MATRIX.
#ifndef GB_MATRIX_WEIGHTS_INCLUDED
#define GB_MATRIX_WEIGHTS_INCLUDED 1
#ifndef GB_COMMON_INCLUDED
#include "common.cuh"
#endif

namespace gb {

__host__ __device__ constexpr int weight(int j, int i) {
  constexpr int w[kSizeY * kSizeX] = GB_MATRIX;
  return w[j * kSizeX + i];
}
__host__ __device__ constexpr bool byte_weights() {
  for (int j = 0; j < kSizeY; ++j) {
    for (int i = 0; i < kSizeX; ++i) {
      if (weight(j, i) < -128 || weight(j, i) > 127) return false;
    }
  }
  return true;
}
static_assert(byte_weights(), "the weights are signed bytes");

}  // namespace gb

#endif  // GB_MATRIX_WEIGHTS_INCLUDED
