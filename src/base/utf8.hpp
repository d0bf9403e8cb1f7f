// utf8.hpp — well-formed UTF-8 as Unicode defines it (table 3-7): no overlong forms, no
// surrogates (U+D800-U+DFFF), nothing past U+10FFFF, no sequence cut short. For the escapers that
// put file names and messages on a terminal (printable) and in JSON (json_string). Pure.
#pragma once

#include <cstddef>
#include <string_view>

namespace gpublur {

/// The length (1 to 4) of the well-formed UTF-8 sequence that starts at text[i], or 0 where none
/// does (a byte that is not UTF-8 there). `i` < text.size().
std::size_t utf8_sequence(std::string_view text, std::size_t i);

/// The code point of the well-formed sequence of `length` bytes at text[i].
char32_t utf8_code_point(std::string_view text, std::size_t i, std::size_t length);

/// Whether `c` is a control character: C0 (U+0000-U+001F), DEL (U+007F) or C1 (U+0080-U+009F,
/// which holds U+009B, a terminal's one-character CSI).
constexpr bool is_control(char32_t c) { return c < 0x20 || (c >= 0x7f && c < 0xa0); }

}  // namespace gpublur
