// version.hpp — gpublur's version string (from CMake's project version).
#pragma once

namespace gpublur {

inline constexpr const char* kVersion = GPUBLUR_VERSION;

}  // namespace gpublur
