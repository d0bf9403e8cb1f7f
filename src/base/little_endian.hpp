// little_endian.hpp — fixed-width little-endian integers in byte buffers, for the kernel cache's
// entry header and payload (the same bytes on every host).
#pragma once

#include <cstdint>
#include <vector>

namespace gpublur {

/// Appends the low `bytes` bytes of `value`, least significant first.
inline void put_le(std::vector<std::uint8_t>& out, std::uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
}

/// Reads `bytes` bytes at `p`, least significant first. The caller checks the bounds.
inline std::uint64_t get_le(const std::uint8_t* p, int bytes) {
  std::uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= static_cast<std::uint64_t>(p[i]) << (8 * i);
  return v;
}

}  // namespace gpublur
