// border.hpp — how samples outside the image are defined: the modes' names for the command line
// and help, and the index rule itself, which lives in kernels/border.cuh so that the CPU blur and
// every kernel compile the same source. Pure; thread-safe.
#pragma once

#include <string_view>

#include "base/name_table.hpp"
#include "border.cuh"

namespace gpublur {

/// Border modes; the pictures show the row "abcd" extended to the left. The values are
/// kernels/border.cuh's numbering, which codegen writes into every kernel as GB_BORDER.
enum class Border : int {
  kClamp = gb_border::kClamp,            // aaa|abcd  OpenCV BORDER_REPLICATE, SciPy 'nearest'
  kReflect = gb_border::kReflect,        // cba|abcd  OpenCV BORDER_REFLECT, SciPy 'reflect'
  kReflect101 = gb_border::kReflect101,  // dcb|abcd  OpenCV BORDER_REFLECT_101, SciPy 'mirror'
  kWrap = gb_border::kWrap,              // bcd|abcd  OpenCV BORDER_WRAP, SciPy 'wrap'
  kConstant = gb_border::kConstant,      // vvv|abcd  OpenCV BORDER_CONSTANT, SciPy 'constant'
};

/// The modes' names, as the command line, --help and --json spell them, with --help's pictures.
inline constexpr NameTable<Border, 5> kBorderNames{{{
    {Border::kClamp, "clamp",
     "aaa|abcd   default; OpenCV BORDER_REPLICATE, SciPy 'nearest', ImageMagick, vips"},
    {Border::kReflect, "reflect", "cba|abcd   OpenCV BORDER_REFLECT, SciPy 'reflect'"},
    {Border::kReflect101, "reflect101",
     "dcb|abcd   OpenCV BORDER_REFLECT_101 (OpenCV's default), SciPy 'mirror'"},
    {Border::kWrap, "wrap", "bcd|abcd   OpenCV BORDER_WRAP, SciPy 'wrap'"},
    {Border::kConstant, "constant",
     "vvv|abcd   OpenCV BORDER_CONSTANT, SciPy 'constant'; v from --border-value"},
}}};

inline std::string_view border_name(Border border) { return kBorderNames.name(border); }

/// The in-image index that index i (any integer) reads from, for an axis of n >= 1 samples;
/// -1 for kConstant outside the image (kernels/border.cuh).
inline int border_index(Border border, int i, int n) {
  return gb_border::index(static_cast<gb_border::Mode>(border), i, n);
}

}  // namespace gpublur
