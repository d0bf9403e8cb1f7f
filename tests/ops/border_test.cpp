// border_test.cpp — index mapping of every border mode, including radius > image.
#include <catch2/catch.hpp>

#include <string>

#include "ops/border.hpp"

using namespace gpublur;

namespace {
// Indices -6..9 of the row "abcd" (n = 4), as letters; '.' for the constant.
std::string extended_row(Border border, int n = 4) {
  std::string s;
  for (int i = -6; i < n + 6; ++i) {
    const int k = border_index(border, i, n);
    s += k < 0 ? '.' : static_cast<char>('a' + k);
  }
  return s;
}
}  // namespace

TEST_CASE("border pictures", "[border]") {
  CHECK(extended_row(Border::kClamp) == "aaaaaaabcddddddd");
  CHECK(extended_row(Border::kReflect) == "cddcbaabcddcbaab");
  CHECK(extended_row(Border::kReflect101) == "abcdcbabcdcbabcd");
  CHECK(extended_row(Border::kWrap) == "cdabcdabcdabcdab");
  CHECK(extended_row(Border::kConstant) == "......abcd......");
}

TEST_CASE("one-sample axes", "[border]") {
  for (Border b : {Border::kClamp, Border::kReflect, Border::kReflect101, Border::kWrap}) {
    for (int i = -40; i <= 40; ++i) REQUIRE(border_index(b, i, 1) == 0);
  }
}

TEST_CASE("border names round-trip", "[border]") {
  for (Border b :
       {Border::kClamp, Border::kReflect, Border::kReflect101, Border::kWrap, Border::kConstant}) {
    CHECK(kBorderNames.parse(border_name(b)) == b);
  }
  CHECK_FALSE(kBorderNames.parse("mirror"));
}
