// checked_math.hpp — overflow-checked size arithmetic for image buffers.
#pragma once

#include <cstddef>
#include <limits>
#include <string>

#include "base/errors.hpp"

namespace gpublur {

/// a * b, or IoError("image too large") when the product does not fit in size_t.
inline std::size_t checked_mul(std::size_t a, std::size_t b) {
  if (a != 0 && b > std::numeric_limits<std::size_t>::max() / a) {
    throw IoError("image too large: " + std::to_string(a) + " x " + std::to_string(b) +
                  " bytes overflows");
  }
  return a * b;
}

template <typename... Rest>
std::size_t checked_mul(std::size_t a, std::size_t b, Rest... rest) {
  return checked_mul(checked_mul(a, b), static_cast<std::size_t>(rest)...);
}

}  // namespace gpublur
