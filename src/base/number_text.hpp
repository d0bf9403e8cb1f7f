// number_text.hpp — a double as a person writes it: the shortest text that reads back as the same
// double (std::to_chars), so --json and messages say 1.4, not 1.3999999999999999, and 1e+308,
// not its 309 digits. Not through iostreams: in a Python process that has imported NumPy 2.5 (the
// device machine's), formatting a double through std::ostream crashed gpublur's module.
#pragma once

#include <charconv>
#include <string>

namespace gpublur {

/// `value` in the fewest digits that give it back exactly, e.g. number_text(0.1) == "0.1",
/// number_text(1e308) == "1e+308"; "nan" and "inf" as they are.
inline std::string number_text(double value) {
  char text[32];  // the longest shortest form, "-2.2250738585072014e-308", has 24
  const std::to_chars_result end = std::to_chars(text, text + sizeof text, value);
  return std::string(text, end.ptr);
}

}  // namespace gpublur
