// border.cpp — border names and index mapping.
#include "border.hpp"

#include <array>
#include <utility>

namespace gpublur {
namespace {

constexpr std::array<std::pair<Border, std::string_view>, 5> kNames = {{
    {Border::kClamp, "clamp"},
    {Border::kReflect, "reflect"},
    {Border::kReflect101, "reflect101"},
    {Border::kWrap, "wrap"},
    {Border::kConstant, "constant"},
}};

int floor_mod(int i, int n) {
  const int r = i % n;
  return r < 0 ? r + n : r;
}

}  // namespace

std::string_view border_name(Border border) {
  for (const auto& [b, name] : kNames) {
    if (b == border) return name;
  }
  return "?";
}

std::optional<Border> parse_border(std::string_view name) {
  for (const auto& [b, n] : kNames) {
    if (n == name) return b;
  }
  return std::nullopt;
}

int border_index(Border border, int i, int n) {
  if (i >= 0 && i < n) return i;
  switch (border) {
    case Border::kClamp:
      return i < 0 ? 0 : n - 1;
    case Border::kReflect: {  // period 2n: abcd dcba abcd ...
      const int k = floor_mod(i, 2 * n);
      return k < n ? k : 2 * n - 1 - k;
    }
    case Border::kReflect101: {  // period 2n-2: abcd cb abcd ...
      if (n == 1) return 0;
      const int k = floor_mod(i, 2 * n - 2);
      return k < n ? k : 2 * n - 2 - k;
    }
    case Border::kWrap:
      return floor_mod(i, n);
    case Border::kConstant:
      return -1;
  }
  return -1;
}

}  // namespace gpublur
