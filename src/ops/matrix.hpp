// matrix.hpp — the convolution matrix's front end: the user's matrix (the command line's text, a
// libvips matrix file, or a program's numbers) with its divisor and offset, checked, and then
// made into the numbers every precision sums with (FilterSpec's MatrixNumbers). Correlation, as
// OpenCV's filter2D and libvips' conv compute it: weight (j, i) multiplies the sample j - ry rows
// and i - rx columns away, not flipped. Each output is clamp(round(sum(w * p) / D + O)), halves
// away from zero:
//  - exact where the matrix, D and O are decimals the sums hold: all scaled by the power of ten
//    that makes them integers, and computed in integers (kernels/arithmetic.cuh's Matrix8/16);
//  - else in fixed point, each w / D rounded to F fractional bits (the most that keep the sums
//    within bounds), so an output is at most (n * max + 1) * 2^-(F+1) from the exact formula
//    before its rounding (n the matrix's values, max 255 or 65535): always below 1/2 (a matrix
//    for which it would not be is refused), so within 1 LSB;
//  - floating point (HDR): w / D in double, no rounding but float's.
// A matrix of rank one (every 2x2 minor zero: a box, a binomial, Sobel) is the product of an
// integer column and row, and runs as a vertical then a horizontal pass whose integer sum is the
// dense sum exactly. Pure; thread-safe; refusals are UsageErrors that say what to change.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ops/decimal.hpp"
#include "ops/filter_spec.hpp"

namespace gpublur {

/// The largest side of a matrix that is not of rank one (a dense 2-D pass: 961 taps).
constexpr int kMaxDenseMatrix = 31;
/// The largest side of a matrix of rank one (two 1-D passes).
constexpr int kMaxSeparableMatrix = 255;

/// A matrix as the user gave it.
struct MatrixParameters {
  int width = 0, height = 0;               // odd, from 1
  std::vector<Decimal> values;             // height rows of width values
  std::optional<Decimal> divisor;          // unset: the values' sum where it is not 0, else 1
  std::optional<Decimal> offset;           // unset: 0
  std::string divisor_from = "--divisor";  // where a divisor came from, for --verbose
};

/// The command line's form: rows separated by ';' or newlines, values by spaces, tabs or commas
/// (blank rows are passed over). Throws UsageError naming the row and value at fault: no values,
/// ragged rows, a value that is no number, an even or too large side.
MatrixParameters parse_matrix_text(std::string_view text);

/// libvips' matrix file: a first line "WIDTH HEIGHT [SCALE [OFFSET]]" (SCALE the divisor), then
/// HEIGHT lines of WIDTH values, separated by spaces, tabs, commas or quotation marks; blank lines
/// and lines starting with '#' are passed over. `name` names the file in errors.
MatrixParameters parse_matrix_file(std::string_view text, const std::string& name);

/// A program's matrix (Python's): rows of numbers, each the decimal its shortest text shows.
/// Throws UsageError for an empty or ragged matrix or a value that is not finite.
MatrixParameters matrix_of_rows(const std::vector<std::vector<double>>& rows);

/// The numbers every precision sums with (throws UsageError: a zero divisor, a matrix too large
/// for its form, values past the sums' bounds, saying the bound).
MatrixNumbers make_matrix_numbers(const MatrixParameters& matrix);

/// Checks the shape alone (odd sides, the largest sizes): the first check of every front end.
void check_matrix_shape(int width, int height, const std::string& what);

}  // namespace gpublur
