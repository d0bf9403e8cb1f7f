// decimal.hpp — a number as the user writes it, exactly: mantissa x 10^exponent. A matrix written
// in decimals ("0.25 0.5 0.25") then becomes integers with no rounding at all (matrix.hpp). Pure;
// thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gpublur {

/// The most significant digits a decimal keeps (its mantissa fits 63 bits).
constexpr int kMaxDecimalDigits = 18;
/// The largest |exponent| (1e-40 and 1e40 are far outside any useful matrix).
constexpr int kMaxDecimalExponent = 40;

/// mantissa x 10^exponent, normalised: the mantissa has no trailing zero digit (0 is 0 x 10^0).
struct Decimal {
  std::int64_t mantissa = 0;  // |mantissa| < 10^18
  int exponent = 0;
  bool operator==(const Decimal& o) const {
    return mantissa == o.mantissa && exponent == o.exponent;
  }
  bool operator!=(const Decimal& o) const { return !(*this == o); }
  /// The double nearest the decimal (correctly rounded).
  double value() const;
};

/// "[+-]digits[.digits][e[+-]digits]" (digits on at least one side of the point); nullopt for
/// anything else, with `why` (if given) saying what: not a number, more than kMaxDecimalDigits
/// significant digits, or an exponent out of range.
std::optional<Decimal> parse_decimal(std::string_view text, std::string* why = nullptr);

/// The shortest decimal that reads back as `value` (finite), e.g. 0.1 -> 1 x 10^-1: a Python float
/// or a NumPy array's value as its repr shows it.
Decimal decimal_of(double value);

/// The decimal as a number in JSON and messages: "-0.25", "300", "1e-30"; reads back exactly.
std::string decimal_text(const Decimal& d);

/// 10^n for 0 <= n <= 38, in 128 bits.
__extension__ typedef __int128 Int128;  // __extension__: a GNU type, said knowingly
Int128 power_of_ten(int n);

}  // namespace gpublur
