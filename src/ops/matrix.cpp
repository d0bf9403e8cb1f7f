// matrix.cpp — a matrix's numbers: the exact integer form (a power of ten), or fixed point where
// that is past the sums' bounds; the rank-one factors; the real weights for floating point.
#include "ops/matrix.hpp"

#include <cmath>
#include <cstdlib>
#include <numeric>

#include "base/errors.hpp"

namespace gpublur {
namespace {

const Int128 k2to62 = Int128(1) << 62;

Int128 abs128(Int128 v) { return v < 0 ? -v : v; }

Int128 gcd128(Int128 a, Int128 b) {
  a = abs128(a);
  b = abs128(b);
  while (b != 0) {
    const Int128 r = a % b;
    a = b;
    b = r;
  }
  return a;
}

std::string text128(Int128 v) {
  if (v == 0) return "0";
  const bool negative = v < 0;
  std::string s;
  for (Int128 a = abs128(v); a > 0; a /= 10) s.insert(s.begin(), static_cast<char>('0' + a % 10));
  return (negative ? "-" : "") + s;
}

// mantissa x 10^exponent as a Decimal, exactly where it has at most 18 significant digits.
Decimal decimal_from(Int128 mantissa, int exponent) {
  while (mantissa != 0 && mantissa % 10 == 0) {
    mantissa /= 10;
    ++exponent;
  }
  if (abs128(mantissa) < Int128(1000000000000000000ll)) {
    return {static_cast<std::int64_t>(mantissa), mantissa == 0 ? 0 : exponent};
  }
  return decimal_of(static_cast<double>(mantissa) * std::pow(10.0, exponent));
}

// The user's matrix, divisor and offset over one power of ten 10^-k (k >= 0), as integers: the
// quotient W / D is the matrix / divisor exactly, D > 0. Unset where a value needs more than
// 62 bits so.
struct Exact {
  std::vector<Int128> weights;
  Int128 divisor = 1;
  Int128 scale = 1, bias = 0, denominator = 1;  // the offset's part of the finish (arithmetic.cuh)
};

// d x 10^shift as an integer, or nullopt past 62 bits.
std::optional<Int128> scaled(const Decimal& d, int shift) {
  if (shift < 0 || shift > 20) return std::nullopt;
  const Int128 v = Int128(d.mantissa) * power_of_ten(shift);
  if (abs128(v) > k2to62) return std::nullopt;
  return v;
}

// The divisor the user gave, or the rule's: the values' sum where it is not 0, else 1.
struct Divisor {
  Decimal value;
  std::string rule;
};

Divisor divisor_of(const MatrixParameters& m) {
  if (m.divisor) {
    if (m.divisor->mantissa == 0) {
      throw UsageError(m.divisor_from + " must not be 0 (the matrix's sum is divided by it); " +
                       "leave it out for the values' sum, or 1 where they sum to 0");
    }
    return {*m.divisor, "given by " + m.divisor_from};
  }
  int low = 0;
  for (const Decimal& v : m.values) low = std::min(low, v.exponent);
  Int128 sum = 0;
  long double rough = 0;
  bool exact = true;
  for (const Decimal& v : m.values) {
    if (v.exponent - low > 20) exact = false;
    if (exact) sum += Int128(v.mantissa) * power_of_ten(v.exponent - low);
    rough += static_cast<long double>(v.value());
  }
  if (exact ? sum == 0 : rough == 0) return {Decimal{1, 0}, "the values sum to 0"};
  const Decimal d = exact ? decimal_from(sum, low) : decimal_of(static_cast<double>(rough));
  return {d, "the values' sum"};
}

std::optional<Exact> exact_form(const MatrixParameters& m, const Decimal& divisor,
                                const Decimal& offset) {
  int low = std::min(0, divisor.exponent);
  for (const Decimal& v : m.values) low = std::min(low, v.exponent);
  Exact e;
  for (const Decimal& v : m.values) {
    const std::optional<Int128> w = scaled(v, v.exponent - low);
    if (!w) return std::nullopt;
    e.weights.push_back(*w);
  }
  const std::optional<Int128> d = scaled(divisor, divisor.exponent - low);
  if (!d) return std::nullopt;
  e.divisor = *d;
  if (e.divisor < 0) {
    e.divisor = -e.divisor;
    for (Int128& w : e.weights) w = -w;
  }
  // x = S / D + O with O = o x 10^q: (S * 10^-q + o * D) / (D * 10^-q) where q < 0.
  const int q = offset.exponent;
  if (q < -18 || q > 18) return std::nullopt;
  e.scale = q < 0 ? power_of_ten(-q) : 1;
  e.bias = Int128(offset.mantissa) * (q > 0 ? power_of_ten(q) : 1) * e.divisor;
  e.denominator = e.divisor * e.scale;
  const Int128 g = gcd128(gcd128(e.scale, e.bias), e.denominator);
  e.scale /= g;
  e.bias /= g;
  e.denominator /= g;
  if (abs128(e.bias) > k2to62 || e.denominator > k2to62) return std::nullopt;
  return e;
}

// W = column x row in integers, where W has rank one (every 2x2 minor zero); else nullopt. The row
// is the first nonzero row divided by the gcd of its values, so each row of W is a whole multiple
// of it; the signs are then chosen so the column's first nonzero value is positive (Sobel: column
// 1 2 1, row -1 0 1). All zero: column 0, row the unit at the centre.
template <typename T>
std::optional<std::pair<std::vector<T>, std::vector<T>>> rank_one(const std::vector<T>& w,
                                                                  int width, int height) {
  const auto at = [&](int j, int i) { return w[static_cast<std::size_t>(j * width + i)]; };
  std::vector<T> column(static_cast<std::size_t>(height), 0),
      row(static_cast<std::size_t>(width), 0);
  int first = -1;
  for (int j = 0; j < height && first < 0; ++j)
    for (int i = 0; i < width; ++i)
      if (at(j, i) != 0) first = j;
  if (first < 0) {
    row[static_cast<std::size_t>(width / 2)] = 1;
    return std::make_pair(column, row);
  }
  Int128 g = 0;
  int lead = -1;
  for (int i = 0; i < width; ++i) {
    g = gcd128(g, at(first, i));
    if (lead < 0 && at(first, i) != 0) lead = i;
  }
  for (int i = 0; i < width; ++i)
    row[static_cast<std::size_t>(i)] = static_cast<T>(at(first, i) / g);
  for (int j = 0; j < height; ++j) {
    const T r = row[static_cast<std::size_t>(lead)];
    if (at(j, lead) % r != 0) return std::nullopt;
    const T c = at(j, lead) / r;
    for (int i = 0; i < width; ++i) {
      if (Int128(c) * row[static_cast<std::size_t>(i)] != at(j, i)) return std::nullopt;
    }
    column[static_cast<std::size_t>(j)] = c;
  }
  if (column[static_cast<std::size_t>(first)] < 0) {
    for (T& c : column) c = -c;
    for (T& r : row) r = -r;
  }
  return std::make_pair(column, row);
}

template <typename Tap>
void factor(IntegerMatrix<Tap>& q, int width, int height) {
  if (auto f = rank_one(q.weights, width, height)) {
    q.column = std::move(f->first);
    q.row = std::move(f->second);
  }
}

// The largest sample of a precision and the bound |S| may reach in its sums.
struct Precision {
  const char* name;
  Int128 max;
  Int128 sum_bound;
};

// The bound an integer form must keep: |S| <= sum|W| * max within the sums' type, and the finish's
// |S * scale| + |bias| + denominator within 2^62. Empty when kept, else what is past it.
std::string past_bound(Int128 sum_abs, Int128 scale, Int128 bias, Int128 denominator,
                       const Precision& p) {
  const Int128 s = sum_abs * p.max;
  if (s > p.sum_bound) {
    return "the sum of |weights| x " + text128(p.max) + " is " + text128(s) + ", past the " +
           p.name + " sums' bound " + text128(p.sum_bound);
  }
  if (s * scale + abs128(bias) + denominator > k2to62) {
    return "the finishing product (sum of |weights| x " + text128(p.max) +
           " x scale + offset + divisor) is past 2^62";
  }
  return "";
}

template <typename Tap>
bool exact_numbers(const Exact& e, const Precision& p, IntegerMatrix<Tap>& q) {
  Int128 sum_abs = 0;
  for (const Int128 w : e.weights) sum_abs += abs128(w);
  if (!past_bound(sum_abs, e.scale, e.bias, e.denominator, p).empty()) return false;
  for (const Int128 w : e.weights) q.weights.push_back(static_cast<Tap>(w));
  q.scale = {static_cast<std::int64_t>(e.scale), static_cast<std::int64_t>(e.bias),
             static_cast<std::int64_t>(e.denominator),
             static_cast<std::int64_t>(sum_abs * p.max * e.scale + abs128(e.bias))};
  q.sum_abs = static_cast<std::int64_t>(sum_abs);
  q.fraction_bits = -1;
  return true;
}

// Fixed point: each w / D rounded to F fractional bits, F the most (up to 40) that keep the bounds,
// and only where the error bound (n max + 1) 2^-(F+1) is below 1/2 (else UsageError).
template <typename Tap>
void fixed_numbers(const std::vector<double>& c, double offset, const Precision& p,
                   IntegerMatrix<Tap>& q, const std::string& why) {
  for (int f = 40; f >= 0; --f) {
    const double unit = std::ldexp(1.0, f);
    Int128 sum_abs = 0;
    std::vector<Int128> w;
    bool fits = std::fabs(offset) * unit < 1e18;
    for (const double v : c) {
      fits = fits && std::fabs(v) * unit < 1e18;
      if (!fits) break;
      w.push_back(std::llround(v * unit));
      sum_abs += abs128(w.back());
    }
    if (!fits) continue;
    const Int128 bias = std::llround(offset * unit), denominator = Int128(1) << f;
    if (!past_bound(sum_abs, 1, bias, denominator, p).empty()) continue;
    const double error =
        (static_cast<double>(c.size()) * static_cast<double>(p.max) + 1) / std::ldexp(1.0, f + 1);
    if (error >= 0.5) break;
    for (const Int128 v : w) q.weights.push_back(static_cast<Tap>(v));
    q.scale = {1, static_cast<std::int64_t>(bias), static_cast<std::int64_t>(denominator),
               static_cast<std::int64_t>(sum_abs * p.max + abs128(bias))};
    q.sum_abs = static_cast<std::int64_t>(sum_abs);
    q.fraction_bits = f;
    return;
  }
  throw UsageError("--matrix: the values are past what " + std::string(p.name) +
                   " images' sums hold exactly (" + why +
                   "), and in fixed point they would be more than half a level off; use smaller "
                   "values, fewer digits, or integers with --divisor");
}

template <typename Tap>
IntegerMatrix<Tap> integer_numbers(const std::optional<Exact>& exact, const std::vector<double>& c,
                                   double offset, const Precision& p, int width, int height) {
  IntegerMatrix<Tap> q;
  std::string why = "more than 20 decimal places between its values, or past 2^62";
  if (exact) {
    Int128 sum_abs = 0;
    for (const Int128 w : exact->weights) sum_abs += abs128(w);
    why = past_bound(sum_abs, exact->scale, exact->bias, exact->denominator, p);
  }
  if (!exact || !exact_numbers(*exact, p, q)) fixed_numbers(c, offset, p, q, why);
  factor(q, width, height);
  if (!q.separable() && (width > kMaxDenseMatrix || height > kMaxDenseMatrix)) {
    throw UsageError("--matrix: " + std::to_string(width) + "x" + std::to_string(height) +
                     " is not of rank one (some 2x2 minor is not 0), so it runs as a dense 2-D "
                     "pass, which is at most " +
                     std::to_string(kMaxDenseMatrix) + "x" + std::to_string(kMaxDenseMatrix));
  }
  return q;
}

RealMatrix real_numbers(const std::optional<Exact>& exact, const std::vector<double>& c,
                        double divisor, double offset, int width, int height) {
  RealMatrix r;
  r.weights = c;
  r.offset.offset = offset;
  if (!exact) return r;
  std::vector<std::int64_t> w;
  for (const Int128 v : exact->weights) w.push_back(static_cast<std::int64_t>(v));
  if (const auto f = rank_one(w, width, height)) {
    for (const std::int64_t v : f->first) r.column.push_back(static_cast<double>(v));
    for (const std::int64_t v : f->second) r.row.push_back(static_cast<double>(v) / divisor);
  }
  return r;
}

}  // namespace

MatrixNumbers make_matrix_numbers(const MatrixParameters& m) {
  check_matrix_shape(m.width, m.height, "--matrix");
  if (m.values.size() != static_cast<std::size_t>(m.width) * static_cast<std::size_t>(m.height)) {
    throw InternalError("make_matrix_numbers: " + std::to_string(m.values.size()) + " values");
  }
  MatrixNumbers n;
  n.width = m.width;
  n.height = m.height;
  n.values = m.values;
  const Divisor divisor = divisor_of(m);
  n.divisor = divisor.value;
  n.divisor_rule = divisor.rule;
  n.offset = m.offset.value_or(Decimal{});
  const std::optional<Exact> exact = exact_form(m, n.divisor, n.offset);
  // The real quotients: exact integers divided once where there are, else the decimals' doubles.
  std::vector<double> c;
  const double d = exact ? static_cast<double>(exact->divisor) : n.divisor.value();
  for (std::size_t i = 0; i < m.values.size(); ++i) {
    c.push_back(exact ? static_cast<double>(exact->weights[i]) / d : m.values[i].value() / d);
  }
  const double offset = n.offset.value();
  n.q8 = integer_numbers<gb_arith::Matrix8::Tap>(
      exact, c, offset, {"8-bit", 255, gb_arith::Matrix8::kSumBound}, m.width, m.height);
  n.q16 = integer_numbers<gb_arith::Matrix16::Tap>(
      exact, c, offset, {"16-bit", 65535, gb_arith::Matrix16::kSumBound}, m.width, m.height);
  n.real = real_numbers(exact, c, d, offset, m.width, m.height);
  return n;
}

}  // namespace gpublur
