// operation_report.hpp — what --verbose and --json say about the operation, read from the spec's
// numbers (with the rules the command line derived them by): the Gaussian's sizes, sigmas and
// taps; a matrix, its divisor and offset, and the form and arithmetic of each precision; the
// unsharp mask's amount and threshold. Pure.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "ops/blur_parameters.hpp"

namespace gpublur {

/// --verbose's lines (without "gpublur: "), in order.
std::vector<std::string> operation_lines(const BlurParameters& given, const FilterSpec& spec);

/// --json's members for the operation, in order: key and JSON value ("operation", then "x" and
/// "y" for the Gaussian and the unsharp mask, "matrix" or "unsharp", then "border").
std::vector<std::pair<std::string, std::string>> operation_facts(const BlurParameters& given,
                                                                 const FilterSpec& spec);

}  // namespace gpublur
