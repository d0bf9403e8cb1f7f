// number_text.hpp — a double as text, printf's "%.Ng" (what an ostream with that precision
// writes). Not through iostreams: in a Python process that has imported NumPy 2.5 (the device
// machine's), formatting a double through std::ostream crashed gpublur's module; the C library's
// snprintf is untouched by that.
#pragma once

#include <cstdio>
#include <string>

namespace gpublur {

/// `value` with `digits` significant digits, e.g. number_text(1.5) == "1.5",
/// number_text(0.1, 17) == "0.10000000000000001".
inline std::string number_text(double value, int digits = 6) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*g", digits, value);
  return text;
}

}  // namespace gpublur
