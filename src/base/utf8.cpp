// utf8.cpp — the lead byte's length and the range its second byte must be in, then continuations.
#include "base/utf8.hpp"

namespace gpublur {
namespace {

struct Lead {
  std::size_t length;       // 0: not a lead byte
  unsigned char low, high;  // the range of the byte after it (the table's narrow rows)
};

// Table 3-7 of the Unicode standard, by lead byte: E0 and F0 exclude overlong forms, ED the
// surrogates, F4 everything past U+10FFFF; C0, C1 and F5-FF lead nothing well-formed.
Lead lead_of(unsigned char c) {
  if (c < 0x80) return {1, 0, 0};
  if (c < 0xc2) return {0, 0, 0};
  if (c < 0xe0) return {2, 0x80, 0xbf};
  if (c == 0xe0) return {3, 0xa0, 0xbf};
  if (c == 0xed) return {3, 0x80, 0x9f};
  if (c < 0xf0) return {3, 0x80, 0xbf};
  if (c == 0xf0) return {4, 0x90, 0xbf};
  if (c < 0xf4) return {4, 0x80, 0xbf};
  if (c == 0xf4) return {4, 0x80, 0x8f};
  return {0, 0, 0};
}

unsigned char byte_at(std::string_view text, std::size_t i) {
  return static_cast<unsigned char>(text[i]);
}

}  // namespace

std::size_t utf8_sequence(std::string_view text, std::size_t i) {
  const Lead lead = lead_of(byte_at(text, i));
  if (lead.length <= 1 || i + lead.length > text.size()) {
    return lead.length == 1 ? 1 : 0;
  }
  const unsigned char second = byte_at(text, i + 1);
  if (second < lead.low || second > lead.high) return 0;
  for (std::size_t k = 2; k < lead.length; ++k) {
    if ((byte_at(text, i + k) & 0xc0) != 0x80) return 0;
  }
  return lead.length;
}

char32_t utf8_code_point(std::string_view text, std::size_t i, std::size_t length) {
  static constexpr unsigned char kLeadBits[] = {0, 0x7f, 0x1f, 0x0f, 0x07};
  char32_t c = byte_at(text, i) & kLeadBits[length];
  for (std::size_t k = 1; k < length; ++k) c = (c << 6) | (byte_at(text, i + k) & 0x3fu);
  return c;
}

}  // namespace gpublur
