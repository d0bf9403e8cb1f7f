// unsharp.cpp — AMOUNT and THRESHOLD in the units of the unsharp mask's integer sums.
#include "ops/unsharp.hpp"

#include <cmath>

#include "base/errors.hpp"
#include "base/number_text.hpp"

namespace gpublur {
namespace {

// THRESHOLD in units of 2^-bits of a level, rounded down: d > that exactly where d > THRESHOLD.
gb_arith::u64 threshold_in(double threshold, int bits) {
  return static_cast<gb_arith::u64>(std::floor(std::ldexp(threshold, bits)));
}

// AMOUNT in units of 2^-bits, rounded (halves away from zero).
gb_arith::u64 amount_in(double amount, int bits) {
  return static_cast<gb_arith::u64>(std::llround(std::ldexp(amount, bits)));
}

}  // namespace

void check_unsharp(const UnsharpParameters& p, const std::string& flag) {
  if (!(std::isfinite(p.amount) && p.amount >= 0 && p.amount <= kMaxUnsharpAmount)) {
    throw UsageError(flag + ": AMOUNT must be from 0 to " + number_text(kMaxUnsharpAmount) +
                     " (got " + number_text(p.amount) +
                     "); e.g. 1.5 (out = in + AMOUNT x "
                     "(in - blur))");
  }
  if (!(std::isfinite(p.threshold) && p.threshold >= 0 && p.threshold <= kMaxUnsharpThreshold)) {
    throw UsageError(flag + ": THRESHOLD must be from 0 to " + number_text(kMaxUnsharpThreshold) +
                     " levels (got " + number_text(p.threshold) + "); e.g. 1.5,3");
  }
}

UnsharpNumbers make_unsharp_numbers(const UnsharpParameters& p) {
  check_unsharp(p, "unsharp");
  UnsharpNumbers n;
  n.q8 = {amount_in(p.amount, gb_arith::Unsharp8::kAmountBits),
          threshold_in(p.threshold, gb_arith::Unsharp8::kSumBits)};
  n.q16 = {amount_in(p.amount, gb_arith::Unsharp16::kAmountBits),
           threshold_in(p.threshold, gb_arith::Unsharp16::kSumBits)};
  n.real = {p.amount, p.threshold};
  return n;
}

}  // namespace gpublur
