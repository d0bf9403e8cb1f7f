// test_icc.hpp — test support: an ICC profile with a header readers accept (libpng checks its
// size, signature, colour space and tag table) and a body of made-up tag bytes.
#pragma once

#include <cstdint>
#include <vector>

namespace gpublur::test {

inline std::vector<std::uint8_t> test_icc_profile(std::size_t size = 4096, bool gray = false) {
  std::vector<std::uint8_t> p(size, 0);
  const auto put = [&](std::size_t at, const char* four) {
    for (int i = 0; i < 4; ++i)
      p[at + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(four[i]);
  };
  const auto put32 = [&](std::size_t at, std::uint32_t v) {
    for (int i = 0; i < 4; ++i)
      p[at + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(v >> (24 - 8 * i));
  };
  put32(0, static_cast<std::uint32_t>(size));
  put32(8, 0x02100000);  // version 2.1
  put(12, "mntr");
  put(16, gray ? "GRAY" : "RGB ");
  put(20, "XYZ ");
  put(36, "acsp");
  put32(68, 0x0000f6d6), put32(72, 0x00010000), put32(76, 0x0000d32d);  // D50
  put32(128, 1);  // one tag, 'desc', over the rest of the profile
  put(132, "desc");
  put32(136, 144);
  put32(140, static_cast<std::uint32_t>(size - 144));
  put(144, "desc");
  for (std::size_t i = 160; i < size; ++i) p[i] = static_cast<std::uint8_t>(i * 13);
  return p;
}

}  // namespace gpublur::test
