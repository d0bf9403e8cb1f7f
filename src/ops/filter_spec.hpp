// filter_spec.hpp — what a filter computes, as numbers: the operation, its numbers at every
// precision the kernels sum in (kernels/arithmetic.cuh's policies), channels, border, alpha. Made
// by an operation's front end (the Gaussian's gaussian.hpp, the matrix's matrix.hpp, the unsharp
// mask's unsharp.hpp) and only read after that: the CPU twin, codegen and the reports take their
// numbers from here, never from the operation's parameters. Not how it is computed (see codegen).
// Plain data.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "arithmetic.cuh"
#include "base/name_table.hpp"
#include "ops/border.hpp"
#include "ops/decimal.hpp"
#include "ops/weights.hpp"  // the precisions (kWeightBits, ...) and limits the taps are made to

namespace gpublur {

/// One axis' taps, index 0 at offset -radius, in the type each policy sums them in.
struct AxisTaps {
  int size = 1;  // odd: 2 * radius + 1 taps in each vector (unset: the identity, one tap)
  std::vector<gb_arith::Straight8::Tap> q16{1u << 16};     // 8-bit images: sum exactly 2^16
  std::vector<gb_arith::Straight16::Tap> q24{1ull << 24};  // 16-bit images: sum exactly 2^24
  std::vector<gb_arith::Float::Tap> real{1.0};             // floating-point images: sum 1
  double sigma = 0;  // the Gaussian's sigma: a description (--verbose, --json, the prelude's
                     // comment), never read to compute
  int radius() const { return size / 2; }
};

/// What a filter computes; each a front end's numbers for the one back end.
enum class Operation { kGaussian, kMatrix, kUnsharp };

inline constexpr NameTable<Operation, 3> kOperationNames{{{
    {Operation::kGaussian, "gaussian", "the Gaussian blur (--size, --sigma)"},
    {Operation::kMatrix, "matrix", "a convolution matrix (--matrix)"},
    {Operation::kUnsharp, "unsharp", "an unsharp mask (--unsharp with --size, --sigma)"},
}}};

/// A matrix's numbers for one integer precision (kernels/arithmetic.cuh's Matrix8, Matrix16): an
/// output sample is clamp(round((S * scale + bias) / denominator)), S the exact sum of weight x
/// sample over the matrix (dense), or, for a matrix of rank one, of its column then its row.
template <typename Tap>
struct IntegerMatrix {
  std::vector<Tap> weights;      // height x width, row-major, centred; index 0 at (-ry, -rx)
  std::vector<Tap> column, row;  // rank one: weights[j * width + i] == column[j] * row[i]
  gb_arith::MatrixScale scale{0, 0, 1, 0};
  int fraction_bits = -1;    // -1: exact (the matrix scaled by a power of ten); else fixed point
                             // with this many fractional bits (matrix.hpp states its error)
  std::int64_t sum_abs = 0;  // sum of |weights|: |S| <= sum_abs * the largest sample
  bool separable() const { return !row.empty(); }
};

/// The matrix for floating-point images (MatrixFloat): the real weights w / divisor (rank one:
/// column and row, the divisor in the row), and the offset.
struct RealMatrix {
  std::vector<double> weights, column, row;
  gb_arith::MatrixOffset offset{0};
  bool separable() const { return !row.empty(); }
};

struct MatrixNumbers {
  int width = 1, height = 1;                   // odd
  IntegerMatrix<gb_arith::Matrix8::Tap> q8;    // 8-bit images
  IntegerMatrix<gb_arith::Matrix16::Tap> q16;  // 16-bit images
  RealMatrix real;                             // floating-point images
  // As the user gave them, a description (--verbose, --json): the values, row-major; the
  // divisor used (given, from a file, or the rule's) and how it was chosen; the offset.
  std::vector<Decimal> values;
  Decimal divisor, offset;
  std::string divisor_rule;
  int radius_x() const { return width / 2; }
  int radius_y() const { return height / 2; }
};

/// The unsharp mask's numbers (kernels/arithmetic.cuh's Unsharp8, Unsharp16, UnsharpFloat); its
/// Gaussian is the spec's x and y.
struct UnsharpNumbers {
  gb_arith::UnsharpScale q8{0, 0};   // threshold in 2^-24 of a level
  gb_arith::UnsharpScale q16{0, 0};  // threshold in 2^-32 of a level
  gb_arith::UnsharpReal real{0, 0};  // AMOUNT and THRESHOLD as given
};

struct FilterSpec {
  Operation operation = Operation::kGaussian;
  AxisTaps x;              // horizontal taps (the Gaussian's, also the unsharp mask's)
  AxisTaps y;              // vertical taps
  MatrixNumbers matrix;    // kMatrix
  UnsharpNumbers unsharp;  // kUnsharp
  int channels = 3;
  Border border = Border::kClamp;
  std::array<std::uint8_t, 4> border_value{};  // per channel, used by Border::kConstant
  // The same for 16-bit images; unset: border_value * 257. (--linear sets it to the linear-light
  // value of border_value, since the blur then runs on linear samples.)
  std::optional<std::array<std::uint16_t, 4>> border_value16;
  // Blur with premultiplied alpha (the last of 2 or 4 channels): kernels/arithmetic.cuh.
  bool premultiplied = false;
  // Copy the alpha channel (the last of 2 or 4) and filter the colours only: the matrix and the
  // unsharp mask under --alpha premultiplied (a weighted mean of alpha is the Gaussian's).
  bool keep_alpha = false;
};

/// The spec's first name, which the GPU layers still use (blur_spec.hpp includes this file).
using BlurSpec = FilterSpec;

/// The constant border's pixel in the samples' own scale: 8-bit values as given, 16-bit ones
/// from border_value16 or else value * 257, floating-point ones value / 255.
template <typename Sample>
std::array<Sample, 4> border_pixel(const FilterSpec& spec) {
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
