// arch.hpp — GPU architectures (compute capabilities) and their NVRTC names. Pure.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/name_table.hpp"

namespace gpublur {

/// How the kernel is compiled: a CUBIN for one real architecture (sm_XY), or PTX for a
/// virtual one (compute_XY) that the driver JIT-compiles when loading.
enum class Target { kCubin, kPtx };

inline constexpr NameTable<Target, 2> kTargetNames{{{
    {Target::kCubin, "cubin", "compiled for the GPU's architecture (default)"},
    {Target::kPtx, "ptx", "PTX that the driver compiles when it loads it"},
}}};

inline std::string_view target_name(Target target) { return kTargetNames.name(target); }

struct Arch {
  int major = 0;
  int minor = 0;
  int number() const { return major * 10 + minor; }  // 90 for sm_90, 120 for sm_120
  std::string sm() const { return "sm_" + std::to_string(number()); }
  std::string compute() const { return "compute_" + std::to_string(number()); }
  std::string capability() const { return std::to_string(major) + "." + std::to_string(minor); }
  friend bool operator==(Arch a, Arch b) { return a.number() == b.number(); }
  friend bool operator<(Arch a, Arch b) { return a.number() < b.number(); }
};

/// "sm_90" or "sm_120" (also "compute_90"); nullopt for anything else.
std::optional<Arch> parse_arch(std::string_view text);
/// 90 -> 9.0, 120 -> 12.0, 86 -> 8.6.
Arch arch_from_number(int number);

}  // namespace gpublur
