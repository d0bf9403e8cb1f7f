// literals.hpp — the pieces of a generated prelude: #define lines, and C++ literals that read
// back as exactly the value given (integers with their suffix, floating point in hexadecimal: no
// decimal rounding on the way into NVRTC). Shared by codegen.cpp and policy_defines.cpp.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "arithmetic.cuh"

namespace gpublur::prelude_text {

inline std::string define(const std::string& name, int value) {
  return "#define " + name + " " + std::to_string(value) + "\n";
}
inline std::string define(const std::string& name, const std::string& value) {
  return "#define " + name + " " + value + "\n";
}

inline std::string literal(std::uint32_t v) { return std::to_string(v) + "u"; }
inline std::string literal(unsigned long long v) { return std::to_string(v) + "ull"; }
inline std::string literal(std::uint16_t v) { return std::to_string(v); }
inline std::string literal(std::uint8_t v) { return std::to_string(v); }
inline std::string literal(int v) { return std::to_string(v); }
inline std::string literal(long long v) { return std::to_string(v) + "ll"; }
inline std::string literal(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%a", v);
  return buf;
}
inline std::string literal(float v) { return literal(static_cast<double>(v)) + "f"; }

// The finishing numbers of arithmetic.cuh's matrix and unsharp policies, as aggregate initialisers.
inline std::string literal(const gb_arith::MatrixScale& m) {
  return "{" + literal(m.scale) + ", " + literal(m.bias) + ", " + literal(m.denominator) + ", " +
         literal(m.reach) + "}";
}
inline std::string literal(const gb_arith::MatrixOffset& m) {
  return "{" + literal(m.offset) + "}";
}
inline std::string literal(const gb_arith::UnsharpScale& u) {
  return "{" + literal(u.amount) + ", " + literal(u.threshold) + "}";
}
inline std::string literal(const gb_arith::UnsharpReal& u) {
  return "{" + literal(u.amount) + ", " + literal(u.threshold) + "}";
}

template <typename T>
std::string initializer(const std::vector<T>& values) {
  std::string s = "{";
  for (std::size_t i = 0; i < values.size(); ++i) s += (i ? ", " : "") + literal(values[i]);
  return s + "}";
}

}  // namespace gpublur::prelude_text
