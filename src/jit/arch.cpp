// arch.cpp — architecture names.
#include "jit/arch.hpp"

#include <cctype>

namespace gpublur {

Arch arch_from_number(int number) { return Arch{number / 10, number % 10}; }

std::optional<Arch> parse_arch(std::string_view text) {
  for (std::string_view prefix : {"sm_", "compute_"}) {
    if (text.substr(0, prefix.size()) != prefix) continue;
    const std::string_view digits = text.substr(prefix.size());
    if (digits.size() < 2 || digits.size() > 3) return std::nullopt;
    int number = 0;
    for (char c : digits) {
      if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
      number = number * 10 + (c - '0');
    }
    if (number < 10) return std::nullopt;
    return arch_from_number(number);
  }
  return std::nullopt;
}

}  // namespace gpublur
