// cpu_matrix.hpp — the CPU twin's dense 2-D pass, for a matrix that is not of rank one (a rank-one
// matrix takes cpu_blur.cpp's separable pass). Used by cpu_blur.cpp, whose blur_on_cpu is the
// entry point for every operation.
#pragma once

#include "image/image.hpp"
#include "ops/filter_spec.hpp"

namespace gpublur {

/// in filtered by spec.matrix's dense weights (spec.operation == Operation::kMatrix), with the
/// Matrix8, Matrix16 or MatrixFloat policy's arithmetic; threads as blur_on_cpu's.
Image dense_matrix_on_cpu(const Image& in, const FilterSpec& spec, unsigned threads);
Image16 dense_matrix_on_cpu(const Image16& in, const FilterSpec& spec, unsigned threads);
ImageF dense_matrix_on_cpu(const ImageF& in, const FilterSpec& spec, unsigned threads);

}  // namespace gpublur
