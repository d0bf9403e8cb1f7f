// matrix_weights.cuh — the weights of an 8-bit matrix kernel (matrix_dp4a.cu, matrix_mma.cu):
// weight(j, i), row j and column i of the prelude's GB_MATRIX, a constant once the kernels' loops
// are unrolled; and how many bytes the widest takes as a signed integer (weight_bytes: 1 for a
// matrix of signed bytes, -128 to 127, which the tensor-core kernel is built on and asserts; up
// to 4, which dp4a takes as that many byte planes). Needs common.cuh's sizes and the prelude's
// GB_MATRIX.
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
// The fewest bytes that hold every weight as a signed (two's complement) integer.
__host__ __device__ constexpr int weight_bytes() {
  int bytes = 1;
  for (int j = 0; j < kSizeY; ++j) {
    for (int i = 0; i < kSizeX; ++i) {
      const long long w = weight(j, i);
      while (bytes < 4 && (w < -(1ll << (8 * bytes - 1)) || w >= (1ll << (8 * bytes - 1)))) ++bytes;
    }
  }
  return bytes;
}
__host__ __device__ constexpr bool byte_weights() { return weight_bytes() == 1; }

}  // namespace gb

#endif  // GB_MATRIX_WEIGHTS_INCLUDED
