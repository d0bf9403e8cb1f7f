// border.hpp — how samples outside the image are defined, shared by the CPU and GPU paths.
// Pure; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gpublur {

/// Border modes; the pictures show the row "abcd" extended to the left.
enum class Border {
  kClamp,       // aaa|abcd  OpenCV BORDER_REPLICATE, SciPy 'nearest' (default)
  kReflect,     // cba|abcd  OpenCV BORDER_REFLECT, SciPy 'reflect'
  kReflect101,  // dcb|abcd  OpenCV BORDER_REFLECT_101 (OpenCV's default), SciPy 'mirror'
  kWrap,        // bcd|abcd  OpenCV BORDER_WRAP, SciPy 'wrap'
  kConstant,    // vvv|abcd  OpenCV BORDER_CONSTANT, SciPy 'constant' (v = --border-value)
};

std::string_view border_name(Border border);
std::optional<Border> parse_border(std::string_view name);

/// The in-image index that index i (any integer) reads from, for an axis of n >= 1 samples;
/// -1 for kConstant outside the image. Correct for any distance outside, also when the
/// kernel radius exceeds n (the pattern simply repeats). kernels/blur.cu mirrors this.
int border_index(Border border, int i, int n);

}  // namespace gpublur
