// policy_defines.cpp — a spec's numbers as the defines of its policy's kernel.
#include "codegen/policy_defines.hpp"

#include <vector>

#include "arithmetic.cuh"
#include "base/errors.hpp"
#include "codegen/literals.hpp"
#include "ops/policy_taps.hpp"

namespace gpublur {
namespace {

using namespace prelude_text;
using namespace gb_arith;

// The constant border's pixel in the policy's samples.
template <typename Policy>
std::string border_define(const FilterSpec& spec) {
  const auto pixel = border_pixel<typename Policy::Sample>(spec);
  return define("GB_BORDER_PIXEL",
                initializer(std::vector<typename Policy::Sample>(pixel.begin(), pixel.end())));
}

template <typename Policy>
std::string finish_defines(const typename Policy::Numbers& numbers, bool keep_alpha) {
  return define("GB_FINISH_NUMBERS", literal(numbers)) +
         define("GB_KEEP_ALPHA", keep_alpha ? 1 : 0);
}

// The separable kernel's defines: `x` the taps across, `y` down.
template <typename Policy>
PolicyDefines separable(const FilterSpec& spec, const char* policy,
                        const std::vector<typename Policy::Tap>& x,
                        const std::vector<typename Policy::Tap>& y) {
  return {define("GB_POLICY", policy) + define("GB_TAPS_X", initializer(x)) +
              define("GB_TAPS_Y", initializer(y)) + border_define<Policy>(spec),
          static_cast<int>(sizeof(typename Policy::Mid))};
}

template <typename Policy>
PolicyDefines gaussian(const FilterSpec& spec, const char* policy) {
  return separable<Policy>(spec, policy, policy_taps<Policy>(spec.x), policy_taps<Policy>(spec.y));
}

template <typename Policy>
PolicyDefines unsharp(const FilterSpec& spec, const char* policy) {
  PolicyDefines d = gaussian<Policy>(spec, policy);
  d.defines += finish_defines<Policy>(unsharp_finish<Policy>(spec.unsharp), spec.keep_alpha);
  return d;
}

template <typename Policy>
PolicyDefines rank_one(const FilterSpec& spec, const char* policy) {
  const auto& m = policy_matrix<Policy>(spec.matrix);
  PolicyDefines d = separable<Policy>(spec, policy, m.row, m.column);
  d.defines += finish_defines<Policy>(matrix_finish<Policy>(spec.matrix), spec.keep_alpha);
  return d;
}

template <typename Policy>
PolicyDefines dense(const FilterSpec& spec, const char* policy) {
  const auto& m = policy_matrix<Policy>(spec.matrix);
  return {define("GB_POLICY", policy) + define("GB_MATRIX", initializer(m.weights)) +
              border_define<Policy>(spec) +
              finish_defines<Policy>(matrix_finish<Policy>(spec.matrix), spec.keep_alpha),
          0};
}

}  // namespace

PolicyDefines general_defines(const FilterSpec& spec, SampleFormat format) {
  const Operation op = spec.operation;
  if (op == Operation::kMatrix && !separable_matrix(spec, format)) {
    throw InternalError("the general kernel for a matrix not of rank one");
  }
  if (spec.premultiplied && (op != Operation::kGaussian || format == SampleFormat::kFloat)) {
    throw InternalError("premultiplied alpha for this filter or samples");
  }
  switch (format) {
    case SampleFormat::k8:
      return op == Operation::kMatrix    ? rank_one<Matrix8>(spec, "Matrix8")
             : op == Operation::kUnsharp ? unsharp<Unsharp8>(spec, "Unsharp8")
             : spec.premultiplied        ? gaussian<Premultiplied8>(spec, "Premultiplied8")
                                         : gaussian<Straight8>(spec, "Straight8");
    case SampleFormat::k16:
      return op == Operation::kMatrix    ? rank_one<Matrix16>(spec, "Matrix16")
             : op == Operation::kUnsharp ? unsharp<Unsharp16>(spec, "Unsharp16")
             : spec.premultiplied        ? gaussian<Premultiplied16>(spec, "Premultiplied16")
                                         : gaussian<Straight16>(spec, "Straight16");
    case SampleFormat::kFloat:
      return op == Operation::kMatrix    ? rank_one<MatrixFloat>(spec, "MatrixFloat")
             : op == Operation::kUnsharp ? unsharp<UnsharpFloat>(spec, "UnsharpFloat")
                                         : gaussian<Float>(spec, "Float");
  }
  throw InternalError("unknown sample format");
}

std::string mma_finish_defines(const FilterSpec& spec) {
  switch (spec.operation) {
    case Operation::kUnsharp:
      return finish_defines<Unsharp8>(unsharp_finish<Unsharp8>(spec.unsharp), spec.keep_alpha);
    case Operation::kMatrix:
      return finish_defines<Matrix8>(matrix_finish<Matrix8>(spec.matrix), spec.keep_alpha);
    case Operation::kGaussian:
      break;
  }
  throw InternalError("a finish for the Gaussian");
}

PolicyDefines dense_defines(const FilterSpec& spec, SampleFormat format) {
  if (spec.operation != Operation::kMatrix) throw InternalError("the dense kernel for no matrix");
  switch (format) {
    case SampleFormat::k8:
      return dense<Matrix8>(spec, "Matrix8");
    case SampleFormat::k16:
      return dense<Matrix16>(spec, "Matrix16");
    case SampleFormat::kFloat:
      return dense<MatrixFloat>(spec, "MatrixFloat");
  }
  throw InternalError("unknown sample format");
}

}  // namespace gpublur
