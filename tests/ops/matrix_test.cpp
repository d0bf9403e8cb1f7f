// matrix_test.cpp — the matrix's front end: its text and file forms and their refusals, exact
// decimals, the rank-one factors, and the numbers each precision sums with (exact, or fixed point
// within its stated error), with the sums' bounds said when they are past.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>

#include "arithmetic.cuh"
#include "base/errors.hpp"
#include "ops/matrix.hpp"

using namespace gpublur;

namespace {

std::vector<Decimal> decimals(std::initializer_list<const char*> texts) {
  std::vector<Decimal> out;
  for (const char* t : texts) out.push_back(*parse_decimal(t));
  return out;
}

void require_refusal(const std::function<void()>& make, const std::string& fragment) {
  CAPTURE(fragment);
  try {
    make();
    FAIL("expected a usage error");
  } catch (const UsageError& e) {
    CHECK_THAT(e.what(), Catch::Contains(fragment));
  }
}

MatrixNumbers numbers_of(const std::string& text) {
  return make_matrix_numbers(parse_matrix_text(text));
}

// Every weight equals column x row.
template <typename Tap>
void require_factors(const IntegerMatrix<Tap>& q, int width, int height) {
  REQUIRE(q.separable());
  REQUIRE(q.column.size() == static_cast<std::size_t>(height));
  REQUIRE(q.row.size() == static_cast<std::size_t>(width));
  for (int j = 0; j < height; ++j) {
    for (int i = 0; i < width; ++i) {
      CHECK(q.weights[static_cast<std::size_t>(j * width + i)] ==
            q.column[static_cast<std::size_t>(j)] * q.row[static_cast<std::size_t>(i)]);
    }
  }
}

}  // namespace

TEST_CASE("decimals are read exactly and written back as they read", "[matrix]") {
  CHECK(*parse_decimal("0.25") == Decimal{25, -2});
  CHECK(*parse_decimal("-1.50") == Decimal{-15, -1});
  CHECK(*parse_decimal("100") == Decimal{1, 2});
  CHECK(*parse_decimal("+.5") == Decimal{5, -1});
  CHECK(*parse_decimal("5.") == Decimal{5, 0});
  CHECK(*parse_decimal("-0") == Decimal{0, 0});
  CHECK(*parse_decimal("1e-3") == Decimal{1, -3});
  CHECK(*parse_decimal("2.5E+2") == Decimal{25, 1});
  CHECK(*parse_decimal("0.000000000000000000123456789012345678") ==
        Decimal{123456789012345678, -36});
  for (const char* bad : {"", ".", "-", "e5", "1e", "1.2.3", "0x10", "nan", "inf", "1,5", "--1"}) {
    CAPTURE(bad);
    std::string why;
    CHECK_FALSE(parse_decimal(bad, &why));
    CHECK(why == "not a number");
  }
  std::string why;
  CHECK_FALSE(parse_decimal("0.1234567890123456789", &why));
  CHECK(why == "more than 18 significant digits");
  CHECK_FALSE(parse_decimal("1e41", &why));
  CHECK_THAT(why, Catch::Contains("exponent out of range"));
  for (const char* text : {"-0.25", "300", "1e-30", "0.001", "123.456", "-7", "1e+40"}) {
    CAPTURE(text);
    const Decimal d = *parse_decimal(text);
    CHECK(*parse_decimal(decimal_text(d)) == d);
  }
  CHECK(decimal_text(*parse_decimal("0.001")) == "0.001");
  CHECK(decimal_text(*parse_decimal("-2.5e2")) == "-250");
  CHECK(decimal_of(0.1) == Decimal{1, -1});
  CHECK(decimal_of(1.0 / 9) == Decimal{1111111111111111, -16});
  CHECK(decimal_of(-3.0) == Decimal{-3, 0});
  CHECK(Decimal{25, -2}.value() == 0.25);
}

TEST_CASE("the command line's matrix: rows by ';' or newlines, values by spaces or commas",
          "[matrix]") {
  const MatrixParameters m = parse_matrix_text("-1 -1 -1; -1 8 -1;\n-1,-1, -1\n\n");
  CHECK(m.width == 3);
  CHECK(m.height == 3);
  CHECK(m.values == decimals({"-1", "-1", "-1", "-1", "8", "-1", "-1", "-1", "-1"}));
  CHECK_FALSE(m.divisor);
  CHECK_FALSE(m.offset);
  const MatrixParameters one = parse_matrix_text("0.5");
  CHECK((one.width == 1 && one.height == 1));
  const MatrixParameters row = parse_matrix_text("1 4 6 4 1");
  CHECK((row.width == 5 && row.height == 1));
}

TEST_CASE("a matrix that cannot be is refused, saying where and why", "[matrix]") {
  const auto text = [](const char* t) { return [t] { parse_matrix_text(t); }; };
  require_refusal(text(""), "the matrix is empty");
  require_refusal(text(" ; \n"), "the matrix is empty");
  require_refusal(text("1 2"), "the width must be odd");
  require_refusal(text("1 2 1; 1 2 1"), "the height must be odd");
  require_refusal(text("1 2 1; 1 2; 1 2 1"), "row 2 has 2 values, row 1 has 3");
  require_refusal(text("1 2 1; 1 two 1; 1 2 1"), "'two' (row 2, value 2) is not a number");
  require_refusal(text("1 2 1e999"), "exponent out of range");
  require_refusal(text("0.12345678901234567891"), "more than 18 significant digits");
  std::string wide;
  for (int i = 0; i < 257; ++i) wide += "1 ";
  require_refusal([&] { parse_matrix_text(wide); }, "at most 255 wide");
}

TEST_CASE("libvips' matrix file: WIDTH HEIGHT [SCALE [OFFSET]], then the rows", "[matrix]") {
  const MatrixParameters m =
      parse_matrix_file("# a Laplacian\n3 3 2 128\n0 -1 0\n\"-1\",4,-1\n0\t-1 0\n\n", "lap.mat");
  CHECK((m.width == 3 && m.height == 3));
  CHECK(m.values == decimals({"0", "-1", "0", "-1", "4", "-1", "0", "-1", "0"}));
  CHECK(*m.divisor == Decimal{2, 0});
  CHECK(*m.offset == Decimal{128, 0});
  CHECK(m.divisor_from == "SCALE of lap.mat");
  const MatrixParameters plain = parse_matrix_file("3 1\n1 2 1\n", "box.mat");
  CHECK_FALSE(plain.divisor);
  const auto file = [](const char* t) { return [t] { parse_matrix_file(t, "m.mat"); }; };
  require_refusal(file(""), "--matrix @m.mat: empty");
  require_refusal(file("3\n1 2 1\n"), "HEIGHT a whole number");
  require_refusal(file("2.5 1\n1 2 1\n"), "WIDTH a whole number");
  require_refusal(file("3 1 1 0 7\n1 2 1\n"), "the first line holds 5 values");
  require_refusal(file("4 1\n1 2 2 1\n"), "the width must be odd");
  require_refusal(file("3 3\n1 2 1\n2 4 2\n"), "says 3 rows, it has 2");
  require_refusal(file("3 1\n1 2\n"), "row 1 has 2 values; its first line says 3");
  require_refusal(file("3 1 x\n1 2 1\n"), "'x' (SCALE) is not a number");
  require_refusal([] { make_matrix_numbers(parse_matrix_file("3 1 0\n1 2 1\n", "z.mat")); },
                  "SCALE of z.mat must not be 0");
}

TEST_CASE("a program's matrix: each double as the decimal its shortest text shows", "[matrix]") {
  const MatrixParameters m = matrix_of_rows({{0.1, 0.2, 0.1}});
  CHECK(m.values == decimals({"0.1", "0.2", "0.1"}));
  require_refusal([] { matrix_of_rows({}); }, "the matrix is empty");
  require_refusal([] { matrix_of_rows({{1, 2, 1}, {1, 2}, {1, 2, 1}}); }, "row 2 has 2 values");
  require_refusal([] { matrix_of_rows({{1, std::nan(""), 1}}); }, "not a finite number");
}

TEST_CASE("a matrix of rank one factors into an integer column and row", "[matrix]") {
  for (const char* text : {"1 1 1; 1 1 1; 1 1 1", "1 2 1; 2 4 2; 1 2 1", "-1 0 1; -2 0 2; -1 0 1",
                           "1 2 1; 0 0 0; -1 -2 -1", "1 4 6 4 1", "1; 4; 6; 4; 1", "0 0 0",
                           "6 -9 3; -4 6 -2; 2 -3 1", "0.25 0.5 0.25"}) {
    CAPTURE(text);
    const MatrixNumbers n = numbers_of(text);
    require_factors(n.q8, n.width, n.height);
    require_factors(n.q16, n.width, n.height);
    CHECK(n.real.separable());
  }
  const MatrixNumbers sobel = numbers_of("-1 0 1; -2 0 2; -1 0 1");
  CHECK(sobel.q8.column == std::vector<int>{1, 2, 1});
  CHECK(sobel.q8.row == std::vector<int>{-1, 0, 1});
  for (const char* text : {"-1 -1 -1; -1 8 -1; -1 -1 -1", "0 -1 0; -1 4 -1; 0 -1 0",
                           "1 2 3; 4 5 6; 7 8 10", "1 0 0; 0 1 0; 0 0 1"}) {
    CAPTURE(text);
    const MatrixNumbers n = numbers_of(text);
    CHECK_FALSE(n.q8.separable());
    CHECK_FALSE(n.q16.separable());
    CHECK_FALSE(n.real.separable());
  }
}

TEST_CASE("an integer or decimal matrix is exact: one power of ten, the divisor and offset folded",
          "[matrix]") {
  SECTION("the sum divides by default") {
    const MatrixNumbers n = numbers_of("1 2 1; 2 4 2; 1 2 1");
    CHECK(n.divisor == Decimal{16, 0});
    CHECK(n.divisor_rule == "the values' sum");
    CHECK(n.q8.fraction_bits == -1);
    CHECK((n.q8.scale.scale == 1 && n.q8.scale.bias == 0 && n.q8.scale.denominator == 16));
    CHECK(n.q8.sum_abs == 16);
    CHECK(n.q8.scale.reach == 16 * 255);  // the most |S scale + bias| can be
    CHECK(n.q16.scale.reach == 16 * 65535);
  }
  SECTION("a matrix summing to 0 is divided by 1") {
    const MatrixNumbers n = numbers_of("-1 -1 -1; -1 8 -1; -1 -1 -1");
    CHECK(n.divisor == Decimal{1, 0});
    CHECK(n.divisor_rule == "the values sum to 0");
    CHECK(n.q8.weights == std::vector<int>{-1, -1, -1, -1, 8, -1, -1, -1, -1});
    CHECK(n.q8.scale.denominator == 1);
  }
  SECTION("decimals scale by the power of ten that makes them whole") {
    const MatrixNumbers n = numbers_of("0.1 0.2 0.1; 0.2 0.3 0.2; 0.1 0.2 0.1");  // sums to 1.5
    CHECK(n.q8.weights == std::vector<int>{1, 2, 1, 2, 3, 2, 1, 2, 1});
    CHECK((n.q8.scale.scale == 1 && n.q8.scale.bias == 0 && n.q8.scale.denominator == 15));
  }
  SECTION("a divisor and a fractional offset stay exact") {
    MatrixParameters m = parse_matrix_text("1 2 1");
    m.divisor = Decimal{-3, 0};   // flips the weights' signs, never the denominator's
    m.offset = Decimal{125, -1};  // 12.5: x = S / -3 + 12.5 = (-S * 10 + 125 * 3) / 30
    const MatrixNumbers n = make_matrix_numbers(m);
    CHECK(n.q8.weights == std::vector<int>{-1, -2, -1});
    CHECK((n.q8.scale.scale == 2 && n.q8.scale.bias == 75 && n.q8.scale.denominator == 6));
    CHECK(n.q8.scale.reach == 4 * 255 * 2 + 75);
    CHECK(n.real.offset.offset == 12.5);
  }
  SECTION("zero divisors are refused") {
    MatrixParameters m = parse_matrix_text("1 2 1");
    m.divisor = Decimal{0, 0};
    require_refusal([&] { make_matrix_numbers(m); }, "--divisor must not be 0");
  }
}

TEST_CASE("the finish rounds in 32 bits where its reach allows, to the 64-bit result", "[matrix]") {
  // finish_matrix takes i32 where 2 reach + denominator < 2^31 (0 at or below 0, else unsigned
  // rounding); the same numbers with a reach past that take i64 (round_div, then the clamp).
  // Every sum either can meet, halves both ways, must give the same sample.
  for (const gb_arith::MatrixScale narrow :
       {gb_arith::MatrixScale{1, 0, 1, 4080}, gb_arith::MatrixScale{1, 0, 25, 6375},
        gb_arith::MatrixScale{2, 75, 6, 2115}, gb_arith::MatrixScale{1, -8, 16, 4088},
        gb_arith::MatrixScale{3, 1000, 7, 1 << 29}, gb_arith::MatrixScale{1, 0, 961, 245055},
        gb_arith::MatrixScale{1, -300, 52, 31920}, gb_arith::MatrixScale{1, 0, 3, 1 << 29}}) {
    gb_arith::MatrixScale wide = narrow;
    wide.reach = 1ll << 40;
    CAPTURE(narrow.scale, narrow.bias, narrow.denominator);
    const long long most =
        (narrow.reach - (narrow.bias < 0 ? -narrow.bias : narrow.bias)) / narrow.scale;
    for (long long s = -most; s <= most; s += s > -300 && s < 300 ? 1 : 997) {
      const int si = static_cast<int>(s);
      REQUIRE(gb_arith::finish_matrix<std::uint8_t, 255>(si, narrow) ==
              gb_arith::finish_matrix<std::uint8_t, 255>(si, wide));
      REQUIRE(gb_arith::finish_matrix<std::uint16_t, 65535>(s, narrow) ==
              gb_arith::finish_matrix<std::uint16_t, 65535>(s, wide));
    }
  }
}

TEST_CASE("the narrow finish divides by one high multiply only where it is exact", "[matrix]") {
  // divide_narrow takes floor(u M / 2^32), M = ceil(2^32 / n), where (reach + h) (M n - 2^32) <
  // 2^32: every u up to reach + h (the most a finish divides) must give u / n. Where the
  // condition fails, some u past its bound would not, so it is not loose.
  for (const gb_arith::MatrixScale m :
       {gb_arith::MatrixScale{1, 0, 961, 245055}, gb_arith::MatrixScale{1, 0, 25, 6375},
        gb_arith::MatrixScale{1, 0, 52, 31620}, gb_arith::MatrixScale{1, 0, 3, 1 << 28},
        gb_arith::MatrixScale{1, 0, 7, 1 << 28}, gb_arith::MatrixScale{1, 0, 1000, 1 << 29},
        gb_arith::MatrixScale{1, 0, 1000, 12000000}}) {  // u e up to 2^33: just past the bound
    CAPTURE(m.denominator, m.reach);
    const bool one = gb_arith::one_multiply_divides(m);
    const std::uint64_t top = static_cast<std::uint64_t>(m.reach + m.denominator / 2);
    for (std::uint64_t u = 0; u <= top; u += u < 100000 || top - u < 100000 ? 1 : 9973) {
      REQUIRE(gb_arith::divide_narrow(static_cast<std::uint32_t>(u), m) ==
              u / static_cast<std::uint64_t>(m.denominator));
    }
    if (!one) {  // the one multiply is wrong somewhere below 2^32: the condition matters
      const std::uint64_t M = gb_arith::reciprocal_of(m);
      bool wrong = false;
      for (std::uint64_t u = (std::uint64_t{1} << 32) - 1; u > (std::uint64_t{1} << 31); u -= 7919)
        wrong = wrong || ((u * M) >> 32) != u / static_cast<std::uint64_t>(m.denominator);
      CHECK(wrong);
    }
  }
  CHECK(gb_arith::one_multiply_divides(gb_arith::MatrixScale{1, 0, 961, 245055}));
  CHECK(gb_arith::one_multiply_divides(gb_arith::MatrixScale{1, 0, 25, 6375}));
  CHECK_FALSE(gb_arith::one_multiply_divides(gb_arith::MatrixScale{1, 0, 1000, 1 << 29}));
  CHECK_FALSE(gb_arith::one_multiply_divides(gb_arith::MatrixScale{1, 0, 1, 4080}));  // n = 1
}

TEST_CASE("the narrow quotient is the floor at or above 0 and at most 0 below", "[matrix]") {
  // narrow_quotient, whose clamp the kernels take four at a time (Matrix8::finish_word): a power
  // of two's shift, one signed high multiply, or the unsigned division of max(t + h, 0).
  for (const gb_arith::MatrixScale m :
       {gb_arith::MatrixScale{1, 0, 1, 4080}, gb_arith::MatrixScale{1, 0, 16, 4088},
        gb_arith::MatrixScale{1, 0, 3, 1 << 28}, gb_arith::MatrixScale{1, 0, 52, 31620},
        gb_arith::MatrixScale{1, 0, 961, 245055}, gb_arith::MatrixScale{1, 0, 1000, 1 << 29},
        gb_arith::MatrixScale{1, 0, 7, 1 << 29}}) {
    CAPTURE(m.denominator, m.reach);
    const long long top = m.reach + m.denominator / 2;
    for (long long t = -top; t <= top; t += t > -100000 && t < 100000 ? 1 : 9973) {
      const int q = gb_arith::narrow_quotient(static_cast<int>(t), m);
      if (t >= 0) {
        REQUIRE(q == t / m.denominator);
      } else {
        REQUIRE(q <= 0);
      }
    }
  }
  // The word of four is finish_sample's bytes, byte k from sum k (the host's form; the kernels'
  // cvt.pack.sat is held to it by the [gpu] tests).
  const gb_arith::MatrixScale m{1, 0, 52, 31620};
  for (int s = -20000; s <= 20000; s += 37) {
    const std::uint32_t word = gb_arith::Matrix8::finish_word(s, s + 1, -s, 2 * s, m);
    REQUIRE((word & 255u) == gb_arith::Matrix8::finish_sample(s, m));
    REQUIRE(((word >> 8) & 255u) == gb_arith::Matrix8::finish_sample(s + 1, m));
    REQUIRE(((word >> 16) & 255u) == gb_arith::Matrix8::finish_sample(-s, m));
    REQUIRE((word >> 24) == gb_arith::Matrix8::finish_sample(2 * s, m));
  }
}

TEST_CASE("past the exact form's bounds, fixed point with its error below half a level",
          "[matrix]") {
  SECTION("many digits: the 8-bit sums take fixed point, the 16-bit ones stay exact") {
    const MatrixNumbers n = numbers_of("0.111111111 0.111111111 0.111111111");
    CHECK(n.q8.fraction_bits > 0);
    CHECK(n.q16.fraction_bits == -1);
    CHECK((n.q8.scale.scale == 1 && n.q8.scale.denominator == (1ll << n.q8.fraction_bits)));
    // Its error bound, (n * 255 + 1) * 2^-(F+1), is below 1/2 (here far below).
    CHECK((3 * 255 + 1) / std::ldexp(1.0, n.q8.fraction_bits + 1) < 0.01);
    CHECK(n.q8.sum_abs * 255 <= 2147483647);
  }
  SECTION("a program's 1/9: fixed point for both") {
    const double ninth = 1.0 / 9;
    const MatrixNumbers n = make_matrix_numbers(
        matrix_of_rows({{ninth, ninth, ninth}, {ninth, ninth, ninth}, {ninth, ninth, ninth}}));
    CHECK(n.q8.fraction_bits > 0);
    CHECK(n.q16.fraction_bits > 0);
    CHECK(n.real.weights[0] == Approx(ninth));
  }
  SECTION("values past every bound are refused, saying the bound") {
    MatrixParameters m = parse_matrix_text("1e17 1 1");
    m.divisor = Decimal{1, 0};
    require_refusal([&] { make_matrix_numbers(m); }, "past what 8-bit images' sums hold");
    require_refusal([&] { make_matrix_numbers(m); }, "2147483647");
  }
  SECTION("a dense matrix is at most 31x31; one of rank one larger") {
    std::string dense, ones;
    for (int j = 0; j < 33; ++j) {
      for (int i = 0; i < 33; ++i) {
        dense += std::to_string((i * 7 + j * 3) % 5) + " ";
        ones += "1 ";
      }
      dense += ";";
      ones += ";";
    }
    require_refusal([&] { numbers_of(dense); }, "at most 31x31");
    const MatrixNumbers box = numbers_of(ones);
    CHECK(box.q8.separable());
    CHECK(box.q8.scale.denominator == 33 * 33);
  }
}
