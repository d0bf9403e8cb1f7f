// operation_options.hpp — the command line's options for what a filter computes: the operation
// (the Gaussian's --size and --sigma, --matrix with --divisor and --offset, --unsharp), the
// border, alpha and linear light; their checks after parsing, and their part of --help. cli.cpp
// defines the rest of the command line. The checks are exposed for the Python package's typed
// operations, so both refuse the same values in the same words.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ops/blur_parameters.hpp"

namespace CLI {
class App;
}

namespace gpublur {

/// The operation's values as given, checked after parsing (they need each other, or a hint).
struct OperationGiven {
  std::optional<int> size, size_y;
  std::optional<double> sigma, sigma_y;
  std::vector<int> border_value;
  std::optional<std::string> matrix, divisor, offset, unsharp;
};

void define_operation_options(CLI::App& app, BlurParameters& blur, OperationGiven& given);

/// Fills `blur` from `given`: the operation and its parameters (a --matrix @FILE read, its
/// numbers made once to check them), the border value. Throws UsageError saying what to do.
void validate_operation(BlurParameters& blur, const OperationGiven& given);

/// --help's sections on the operations, size and sigma, borders and alpha.
std::string operation_help();

/// The Gaussian's size and sigma per axis by the command line's rules (size from sigma,
/// sigma from size; the vertical as the horizontal unless given). Throws UsageError.
KernelSize resolve_kernel_size(const std::optional<int>& size, const std::optional<double>& sigma,
                               const std::optional<int>& size_y,
                               const std::optional<double>& sigma_y);

/// --border-value's 1 to 4 values (one: every channel), each 0..255. Throws UsageError.
std::array<std::uint8_t, 4> border_value_of(const std::vector<int>& values);

/// --matrix's value: the matrix's text, or "@FILE" for libvips' matrix file. Throws UsageError.
MatrixParameters matrix_option(const std::string& value);

/// --unsharp's value, "AMOUNT[,THRESHOLD]". Throws UsageError.
UnsharpParameters unsharp_option(const std::string& value);

}  // namespace gpublur
