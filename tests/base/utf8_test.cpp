// utf8_test.cpp — well-formed UTF-8, and the two escapers built on it: printable() for the
// terminal and json_string() for --json, whose strings must be valid UTF-8 and give back a
// path's exact bytes.
#include <catch2/catch.hpp>

#include <string>

#include "app/run_report.hpp"
#include "base/utf8.hpp"
#include "codecs/image_decode.hpp"

namespace {

using namespace gpublur;

// The length utf8_sequence finds at the start of `bytes`.
std::size_t length_at_start(const std::string& bytes) { return utf8_sequence(bytes, 0); }

}  // namespace

TEST_CASE("only well-formed UTF-8 sequences are taken as UTF-8", "[utf8]") {
  CHECK(length_at_start("a") == 1);
  CHECK(length_at_start(std::string(1, '\0')) == 1);
  CHECK(length_at_start("\xc3\xa9") == 2);          // é
  CHECK(length_at_start("\xe2\x82\xac") == 3);      // €
  CHECK(length_at_start("\xf0\x9f\x98\x80") == 4);  // U+1F600
  CHECK(length_at_start("\xf4\x8f\xbf\xbf") == 4);  // U+10FFFF, the last
  CHECK(length_at_start("\xee\x80\x80") == 3);      // U+E000, past the surrogates
  // Overlong forms of '/' and of U+0000, U+07FF and U+FFFF.
  CHECK(length_at_start("\xc0\xaf") == 0);
  CHECK(length_at_start("\xc1\xbf") == 0);
  CHECK(length_at_start("\xe0\x80\xaf") == 0);
  CHECK(length_at_start("\xe0\x9f\xbf") == 0);
  CHECK(length_at_start("\xf0\x80\x80\xaf") == 0);
  CHECK(length_at_start("\xf0\x8f\xbf\xbf") == 0);
  // Surrogates, and past U+10FFFF.
  CHECK(length_at_start("\xed\xa0\x80") == 0);
  CHECK(length_at_start("\xed\xbf\xbf") == 0);
  CHECK(length_at_start("\xf4\x90\x80\x80") == 0);
  CHECK(length_at_start("\xf5\x80\x80\x80") == 0);
  CHECK(length_at_start("\xff") == 0);
  // Cut short, a continuation byte alone, a lead byte followed by ASCII.
  CHECK(length_at_start("\xe2\x82") == 0);
  CHECK(length_at_start("\xf0\x9f\x98") == 0);
  CHECK(length_at_start("\x80") == 0);
  CHECK(length_at_start(std::string("\xc3") + "a") == 0);
  CHECK(length_at_start(std::string("\xe2\x82") + "a") == 0);
}

TEST_CASE("code points and control characters", "[utf8]") {
  const std::string s = "\xc2\x9b\xf0\x9f\x98\x80";
  CHECK(utf8_code_point(s, 0, 2) == 0x9b);
  CHECK(utf8_code_point(s, 2, 4) == 0x1f600);
  CHECK(is_control(0x00));
  CHECK(is_control(0x1b));
  CHECK(is_control(0x7f));
  CHECK(is_control(0x9b));  // C1's CSI
  CHECK_FALSE(is_control(0x20));
  CHECK_FALSE(is_control(0xa0));
  CHECK_FALSE(is_control(0x1f600));
}

TEST_CASE("printable escapes controls, C1 included, and every byte that is not UTF-8", "[utf8]") {
  CHECK(printable("a\x1b[31mb\x7f") == "a\\x1b[31mb\\x7f");
  CHECK(printable(std::string("\xc2\x9b") + "31m") ==
        "\\xc2\\x9b31m");  // C1 CSI: a terminal's escape
  CHECK(printable("caf\xc3\xa9 \xf0\x9f\x98\x80") == "caf\xc3\xa9 \xf0\x9f\x98\x80");
  CHECK(printable("\xc0\xaf") == "\\xc0\\xaf");           // overlong
  CHECK(printable("\xed\xa0\x80") == "\\xed\\xa0\\x80");  // a surrogate
  CHECK(printable("\xf4\x90\x80\x80") == "\\xf4\\x90\\x80\\x80");
  CHECK(printable("\xe2\x82") == "\\xe2\\x82");  // cut short at the end
  CHECK(printable(std::string("\xe2\x82") + "a") == "\\xe2\\x82a");
  const std::string odd = "x\xff\xc2\x9b\n\xe2\x82\xac";
  CHECK(printable(printable(odd)) == printable(odd));
}

TEST_CASE("JSON strings are valid UTF-8 and keep every byte of a path", "[utf8]") {
  CHECK(json_string("plain") == "\"plain\"");
  CHECK(json_string("q\"b\\") == "\"q\\\"b\\\\\"");
  CHECK(json_string("caf\xc3\xa9\xf0\x9f\x98\x80") == "\"caf\xc3\xa9\xf0\x9f\x98\x80\"");
  CHECK(json_string("a\nb\x1b\x7f") == "\"a\\u000ab\\u001b\\u007f\"");
  CHECK(json_string("\xc2\x9b") == "\"\\u009b\"");  // a C1 control: its code point
  // A byte that is not UTF-8: a lone surrogate U+DC80 + byte (PEP 383), never the raw byte.
  CHECK(json_string("\xff") == "\"\\udcff\"");
  CHECK(json_string("\xc0\xaf") == "\"\\udcc0\\udcaf\"");
  CHECK(json_string("\xed\xa0\x80") == "\"\\udced\\udca0\\udc80\"");
  CHECK(json_string(std::string("\xe2\x82") + "a") == "\"\\udce2\\udc82a\"");
  // Two names that print alike are different JSON strings.
  CHECK(json_string("\x1b") != json_string("\\x1b"));
}
