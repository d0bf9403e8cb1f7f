// sha256.hpp — SHA-256 (nettle) over a canonical, length-prefixed list of fields, for cache
// keys and entry checksums. Pure; thread-safe per object.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace gpublur {

using Digest = std::array<std::uint8_t, 32>;

class Sha256 {
 public:
  Sha256();
  /// Raw bytes, as they are.
  Sha256& bytes(const void* data, std::size_t size);
  /// One field of a list: its 8-byte little-endian length, then its bytes, so that
  /// ("ab", "c") and ("a", "bc") hash differently.
  Sha256& field(std::string_view value);
  Digest digest();

 private:
  alignas(8) unsigned char state_[128];  // nettle's sha256_ctx, kept opaque here
};

Digest sha256(const void* data, std::size_t size);
std::string to_hex(const Digest& digest);

}  // namespace gpublur
