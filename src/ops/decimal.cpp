// decimal.cpp — exact decimals: parsing, the shortest decimal of a double, and text.
#include "ops/decimal.hpp"

#include <charconv>
#include <cstdlib>

#include "base/errors.hpp"

namespace gpublur {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Moves trailing zero digits of the mantissa into the exponent.
Decimal normalised(std::int64_t mantissa, long exponent) {
  if (mantissa == 0) return {};
  while (mantissa % 10 == 0) {
    mantissa /= 10;
    ++exponent;
  }
  return {mantissa, static_cast<int>(exponent)};
}

std::optional<Decimal> refuse(std::string* why, const char* reason) {
  if (why) *why = reason;
  return std::nullopt;
}

}  // namespace

Int128 power_of_ten(int n) {
  if (n < 0 || n > 38) throw InternalError("power_of_ten: 10^" + std::to_string(n));
  Int128 p = 1;
  for (int i = 0; i < n; ++i) p *= 10;
  return p;
}

std::optional<Decimal> parse_decimal(std::string_view text, std::string* why) {
  std::size_t i = 0;
  const bool negative = i < text.size() && text[i] == '-';
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) ++i;
  std::int64_t mantissa = 0;
  long exponent = 0;
  int digits = 0, significant = 0;
  bool point = false;
  for (; i < text.size() && (is_digit(text[i]) || (text[i] == '.' && !point)); ++i) {
    if (text[i] == '.') {
      point = true;
      continue;
    }
    ++digits;
    const int d = text[i] - '0';
    if (significant == 0 && d == 0) {  // a leading zero
      if (point) --exponent;
      continue;
    }
    if (significant == kMaxDecimalDigits) {
      if (d != 0) return refuse(why, "more than 18 significant digits");
      if (!point) ++exponent;  // a trailing zero of the integer part beyond the 18 digits
      continue;
    }
    mantissa = mantissa * 10 + d;
    ++significant;
    if (point) --exponent;
  }
  if (digits == 0) return refuse(why, "not a number");
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    const bool minus = i < text.size() && text[i] == '-';
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) ++i;
    long e = 0;
    const std::size_t first = i;
    for (; i < text.size() && is_digit(text[i]); ++i) {
      e = e * 10 + (text[i] - '0');
      if (e > 1000) return refuse(why, "an exponent out of range");
    }
    if (i == first) return refuse(why, "not a number");
    exponent += minus ? -e : e;
  }
  if (i != text.size()) return refuse(why, "not a number");
  const Decimal d = normalised(negative ? -mantissa : mantissa, exponent);
  if (d.exponent < -kMaxDecimalExponent || d.exponent > kMaxDecimalExponent) {
    return refuse(why, "an exponent out of range (1e-40 to 1e40)");
  }
  return d;
}

double Decimal::value() const {
  const std::string text = std::to_string(mantissa) + "e" + std::to_string(exponent);
  double v = 0;
  std::from_chars(text.data(), text.data() + text.size(), v);  // correctly rounded
  return v;
}

Decimal decimal_of(double value) {
  char text[32];
  const std::to_chars_result end =
      std::to_chars(text, text + sizeof text, value, std::chars_format::scientific);
  const std::optional<Decimal> d =
      parse_decimal(std::string_view(text, static_cast<std::size_t>(end.ptr - text)));
  if (!d) throw InternalError("decimal_of: " + std::string(text, end.ptr));
  return *d;
}

std::string decimal_text(const Decimal& d) {
  const bool negative = d.mantissa < 0;
  std::string digits = std::to_string(negative ? -d.mantissa : d.mantissa);
  const int n = static_cast<int>(digits.size());
  std::string text;
  if (d.exponent >= 0 && d.exponent + n <= 21) {
    text = digits + std::string(static_cast<std::size_t>(d.exponent), '0');
  } else if (d.exponent < 0 && -d.exponent <= 21) {
    const int point = n + d.exponent;  // digits before the point
    text = point > 0 ? digits.substr(0, static_cast<std::size_t>(point)) + "." +
                           digits.substr(static_cast<std::size_t>(point))
                     : "0." + std::string(static_cast<std::size_t>(-point), '0') + digits;
  } else {
    text = digits + "e" + std::to_string(d.exponent);
  }
  return (negative ? "-" : "") + text;
}

}  // namespace gpublur
