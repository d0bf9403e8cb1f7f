// sha256.cpp — nettle's SHA-256 behind a small interface.
#include "base/sha256.hpp"

#include <nettle/sha2.h>

namespace gpublur {
namespace {

static_assert(sizeof(sha256_ctx) <= 128, "Sha256::state_ too small for nettle's context");

sha256_ctx* context(unsigned char* state) { return reinterpret_cast<sha256_ctx*>(state); }

}  // namespace

Sha256::Sha256() { sha256_init(context(state_)); }

Sha256& Sha256::bytes(const void* data, std::size_t size) {
  sha256_update(context(state_), size, static_cast<const std::uint8_t*>(data));
  return *this;
}

Sha256& Sha256::field(std::string_view value) {
  std::uint8_t length[8];
  for (int i = 0; i < 8; ++i)
    length[i] = static_cast<std::uint8_t>(static_cast<std::uint64_t>(value.size()) >> (8 * i));
  bytes(length, sizeof length);
  return bytes(value.data(), value.size());
}

Digest Sha256::digest() {
  Digest d{};
  sha256_digest(context(state_), d.size(), d.data());
  return d;
}

Digest sha256(const void* data, std::size_t size) { return Sha256().bytes(data, size).digest(); }

std::string to_hex(const Digest& digest) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s;
  for (std::uint8_t b : digest) {
    s += kHex[b >> 4];
    s += kHex[b & 15];
  }
  return s;
}

}  // namespace gpublur
