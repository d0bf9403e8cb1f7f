// unsharp.hpp — the unsharp mask's front end: AMOUNT and THRESHOLD checked and made into the
// numbers each precision finishes with (kernels/arithmetic.cuh's Unsharp8, Unsharp16,
// UnsharpFloat); the blur inside it is the Gaussian's (gaussian.hpp). Pure; thread-safe.
#pragma once

#include <string>

#include "ops/filter_spec.hpp"

namespace gpublur {

/// The largest AMOUNT: out = in + AMOUNT * (in - blur).
constexpr double kMaxUnsharpAmount = 10;
/// The largest THRESHOLD, in levels of the image's depth (16-bit's levels at most).
constexpr double kMaxUnsharpThreshold = 65535;

struct UnsharpParameters {
  double amount = 1;
  double threshold = 0;  // levels of the image's depth: 8-bit levels, 16-bit levels, HDR values
};

/// Throws UsageError (naming `flag`) for an AMOUNT outside 0..10 or a THRESHOLD outside
/// 0..65535, or either not a finite number.
void check_unsharp(const UnsharpParameters& parameters, const std::string& flag);

/// AMOUNT in units of 2^-20, THRESHOLD in the blur sum's units (2^-24 or 2^-32 of a level),
/// and both as they are for floating point.
UnsharpNumbers make_unsharp_numbers(const UnsharpParameters& parameters);

}  // namespace gpublur
