// operation_report.cpp — --verbose's lines and --json's members for each operation.
#include "app/operation_report.hpp"

#include "app/run_report.hpp"
#include "base/number_text.hpp"

namespace gpublur {
namespace {

// Values joined by `separator`, each as `text` writes it.
template <typename T, typename Text>
std::string joined(const std::vector<T>& values, const std::string& separator, Text text) {
  std::string s;
  for (const T& v : values) s += (s.empty() ? "" : separator) + text(v);
  return s;
}

template <typename T>
std::string integers(const std::vector<T>& values, const std::string& separator) {
  return joined(values, separator, [](const T& v) { return std::to_string(v); });
}

// Row-major values as JSON rows: [[a, b], [c, d]].
template <typename T, typename Text>
std::string json_rows(const std::vector<T>& values, int width, Text text) {
  std::string s = "[";
  for (std::size_t i = 0; i < values.size(); ++i) {
    const bool first = i % static_cast<std::size_t>(width) == 0;
    s += (first ? (i ? "], [" : "[") : ", ") + text(values[i]);
  }
  return s + "]]";
}

std::string axis_json(const AxisTaps& axis, const AxisSize& given) {
  return "{\"size\": " + std::to_string(axis.size) + ", \"sigma\": " + number_text(axis.sigma) +
         ", \"rule\": " + json_string(given.rule) + ", \"taps\": [" + integers(axis.q16, ", ") +
         "]}";
}

void gaussian_lines(const BlurParameters& given, const FilterSpec& spec,
                    std::vector<std::string>& lines) {
  const KernelSize& k = given.size;
  lines.push_back("size " + std::to_string(spec.x.size) + ", sigma " + number_text(spec.x.sigma) +
                  " (" + k.x.rule + ")");
  lines.push_back("taps (sum 2^" + std::to_string(gb_arith::Straight8::kTapBits) +
                  "): " + integers(spec.x.q16, " "));
  if (spec.y.size != spec.x.size || spec.y.sigma != spec.x.sigma) {
    lines.push_back("vertical: size " + std::to_string(spec.y.size) + ", sigma " +
                    number_text(spec.y.sigma) + " (" + k.y.rule + "), taps " +
                    integers(spec.y.q16, " "));
  }
}

// "two exact 1-D passes (rank one): column 1 2 1, row -1 0 1; out = clamp(round((S + 0) / 1))".
template <typename Tap>
std::string integer_matrix_line(const IntegerMatrix<Tap>& q) {
  std::string s = q.separable() ? "two 1-D passes (rank one): column " + integers(q.column, " ") +
                                      ", row " + integers(q.row, " ")
                                : "a dense 2-D pass (not of rank one)";
  s += q.fraction_bits < 0 ? "; exact integers"
                           : "; fixed point, " + std::to_string(q.fraction_bits) +
                                 " fractional bits (within 1 LSB)";
  const gb_arith::MatrixScale& m = q.scale;
  const std::string sum = m.scale == 1 ? "S" : "S x " + std::to_string(m.scale);
  return s + ": out = clamp(round((" + sum + " + " + std::to_string(m.bias) + ") / " +
         std::to_string(m.denominator) + "))";
}

void matrix_lines(const MatrixNumbers& m, std::vector<std::string>& lines) {
  const std::string shape = std::to_string(m.width) + "x" + std::to_string(m.height);
  std::string values;
  if (m.values.size() <= 81) {
    for (std::size_t i = 0; i < m.values.size(); ++i) {
      const bool row_start = i % static_cast<std::size_t>(m.width) == 0;
      values += (i == 0 ? ": " : row_start ? "; " : " ") + decimal_text(m.values[i]);
    }
  }
  lines.push_back("matrix " + shape + values + ", divisor " + decimal_text(m.divisor) + " (" +
                  m.divisor_rule + "), offset " + decimal_text(m.offset));
  const std::string q8 = integer_matrix_line(m.q8), q16 = integer_matrix_line(m.q16);
  if (q8 == q16) {
    lines.push_back("8-bit and 16-bit: " + q8);
  } else {
    lines.push_back("8-bit: " + q8);
    lines.push_back("16-bit: " + q16);
  }
  lines.push_back(std::string("HDR: ") +
                  (m.real.separable() ? "two 1-D passes" : "a dense 2-D pass") + " in double");
}

template <typename Tap>
std::string integer_matrix_json(const IntegerMatrix<Tap>& q, int width) {
  std::string s = "{\"form\": ";
  s += q.separable() ? "\"separable\", \"column\": [" + integers(q.column, ", ") + "], \"row\": [" +
                           integers(q.row, ", ") + "]"
                     : "\"dense\", \"weights\": " +
                           json_rows(q.weights, width, [](Tap v) { return std::to_string(v); });
  s += std::string(", \"exact\": ") + (q.fraction_bits < 0 ? "true" : "false");
  if (q.fraction_bits >= 0) s += ", \"fraction_bits\": " + std::to_string(q.fraction_bits);
  return s + ", \"scale\": " + std::to_string(q.scale.scale) +
         ", \"bias\": " + std::to_string(q.scale.bias) +
         ", \"denominator\": " + std::to_string(q.scale.denominator) + "}";
}

std::string matrix_json(const MatrixNumbers& m) {
  return "{\"width\": " + std::to_string(m.width) + ", \"height\": " + std::to_string(m.height) +
         ", \"values\": " + json_rows(m.values, m.width, decimal_text) +
         ", \"divisor\": " + decimal_text(m.divisor) +
         ", \"divisor_rule\": " + json_string(m.divisor_rule) +
         ", \"offset\": " + decimal_text(m.offset) +
         ", \"8bit\": " + integer_matrix_json(m.q8, m.width) +
         ", \"16bit\": " + integer_matrix_json(m.q16, m.width) +
         ", \"hdr\": {\"form\": " + (m.real.separable() ? "\"separable\"" : "\"dense\"") + "}}";
}

std::string unsharp_text(const UnsharpNumbers& u) {
  return "out = in + " + number_text(u.real.amount) + " x (in - blur) where |in - blur| > " +
         number_text(u.real.threshold) + " (AMOUNT x 2^" +
         std::to_string(gb_arith::Unsharp8::kAmountBits) + " = " + std::to_string(u.q8.amount) +
         " in the 8-bit sums, x 2^" + std::to_string(gb_arith::Unsharp16::kAmountBits) + " = " +
         std::to_string(u.q16.amount) + " in the 16-bit ones)";
}

std::string unsharp_json(const UnsharpNumbers& u) {
  return "{\"amount\": " + number_text(u.real.amount) +
         ", \"threshold\": " + number_text(u.real.threshold) +
         ", \"amount_units\": " + std::to_string(u.q8.amount) +
         ", \"amount_bits\": " + std::to_string(gb_arith::Unsharp8::kAmountBits) +
         ", \"amount_units_16bit\": " + std::to_string(u.q16.amount) +
         ", \"amount_bits_16bit\": " + std::to_string(gb_arith::Unsharp16::kAmountBits) + "}";
}

}  // namespace

std::vector<std::string> operation_lines(const BlurParameters& given, const FilterSpec& spec) {
  std::vector<std::string> lines;
  switch (spec.operation) {
    case Operation::kMatrix:
      matrix_lines(spec.matrix, lines);
      break;
    case Operation::kUnsharp:
      lines.push_back("unsharp mask: " + unsharp_text(spec.unsharp));
      gaussian_lines(given, spec, lines);
      break;
    case Operation::kGaussian:
      gaussian_lines(given, spec, lines);
      break;
  }
  lines.push_back("border " + std::string(border_name(spec.border)));
  return lines;
}

std::vector<std::pair<std::string, std::string>> operation_facts(const BlurParameters& given,
                                                                 const FilterSpec& spec) {
  std::vector<std::pair<std::string, std::string>> facts;
  facts.emplace_back("operation", json_string(std::string(kOperationNames.name(spec.operation))));
  if (spec.operation == Operation::kMatrix) {
    facts.emplace_back("matrix", matrix_json(spec.matrix));
  } else {
    facts.emplace_back("x", axis_json(spec.x, given.size.x));
    facts.emplace_back("y", axis_json(spec.y, given.size.y));
  }
  if (spec.operation == Operation::kUnsharp)
    facts.emplace_back("unsharp", unsharp_json(spec.unsharp));
  facts.emplace_back("border", json_string(std::string(border_name(spec.border))));
  return facts;
}

}  // namespace gpublur
