// matrix_text.cpp — a matrix from the command line's text, a libvips matrix file, or a program's
// rows of numbers, with the checks of its shape.
#include <cmath>

#include "base/errors.hpp"
#include "ops/matrix.hpp"

namespace gpublur {
namespace {

// The values of one row, split at any of `separators`.
std::vector<std::string_view> split_values(std::string_view row, std::string_view separators) {
  std::vector<std::string_view> values;
  std::size_t i = 0;
  while (i < row.size()) {
    const std::size_t start = row.find_first_not_of(separators, i);
    if (start == std::string_view::npos) break;
    std::size_t end = row.find_first_of(separators, start);
    if (end == std::string_view::npos) end = row.size();
    values.push_back(row.substr(start, end - start));
    i = end;
  }
  return values;
}

// `text` cut at each of `breaks` (rows).
std::vector<std::string_view> split_rows(std::string_view text, std::string_view breaks) {
  std::vector<std::string_view> rows;
  std::size_t start = 0;
  for (;;) {
    const std::size_t end = text.find_first_of(breaks, start);
    rows.push_back(text.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) return rows;
    start = end + 1;
  }
}

// A value that is too long to show in full is cut, so one error stays one line.
std::string shown(std::string_view value) {
  return value.size() <= 24 ? std::string(value) : std::string(value.substr(0, 21)) + "...";
}

// `where` says which value it is ("row 2, value 3"; "SCALE").
Decimal value_of(std::string_view text, const std::string& what, const std::string& where) {
  std::string why;
  const std::optional<Decimal> d = parse_decimal(text, &why);
  if (!d) {
    throw UsageError(what + ": '" + shown(text) + "' (" + where + ") is " + why +
                     "; write numbers like -1, 0.25 or 1e-3");
  }
  return *d;
}

// Appends one row's values; every row must have as many as the first.
void add_row(MatrixParameters& m, const std::vector<std::string_view>& values,
             const std::string& what) {
  const auto row = static_cast<std::size_t>(m.height) + 1;
  if (m.height > 0 && values.size() != static_cast<std::size_t>(m.width)) {
    throw UsageError(what + ": row " + std::to_string(row) + " has " +
                     std::to_string(values.size()) + " values, row 1 has " +
                     std::to_string(m.width) + ": every row needs the same number");
  }
  if (values.size() > static_cast<std::size_t>(kMaxSeparableMatrix)) {
    throw UsageError(what + ": row " + std::to_string(row) + " has " +
                     std::to_string(values.size()) + " values; a matrix is at most " +
                     std::to_string(kMaxSeparableMatrix) + " wide");
  }
  m.width = static_cast<int>(values.size());
  for (std::size_t i = 0; i < values.size(); ++i)
    m.values.push_back(value_of(values[i], what,
                                "row " + std::to_string(row) + ", value " + std::to_string(i + 1)));
  ++m.height;
  if (m.height > kMaxSeparableMatrix) {
    throw UsageError(what + ": more than " + std::to_string(kMaxSeparableMatrix) +
                     " rows; a matrix is at most " + std::to_string(kMaxSeparableMatrix) + " tall");
  }
}

std::string odd_hint(int n) {
  return "; e.g. " + std::to_string(n - 1) + " or " + std::to_string(n + 1);
}

}  // namespace

void check_matrix_shape(int width, int height, const std::string& what) {
  if (width < 1 || height < 1) {
    throw UsageError(what + ": the matrix is empty; e.g. --matrix \"-1 -1 -1; -1 8 -1; -1 -1 -1\"");
  }
  if (width % 2 == 0) {
    throw UsageError(what + ": " + std::to_string(width) +
                     " values a row: the width must be odd, so the matrix has a centre" +
                     odd_hint(width));
  }
  if (height % 2 == 0) {
    throw UsageError(what + ": " + std::to_string(height) +
                     " rows: the height must be odd, so the matrix has a centre" +
                     odd_hint(height));
  }
  if (width > kMaxSeparableMatrix || height > kMaxSeparableMatrix) {
    throw UsageError(what + ": a matrix is at most " + std::to_string(kMaxSeparableMatrix) + "x" +
                     std::to_string(kMaxSeparableMatrix) + " (got " + std::to_string(width) + "x" +
                     std::to_string(height) + ")");
  }
}

MatrixParameters parse_matrix_text(std::string_view text) {
  const std::string what = "--matrix";
  MatrixParameters m;
  for (std::string_view row : split_rows(text, ";\n")) {
    const std::vector<std::string_view> values = split_values(row, " \t\r,");
    if (!values.empty()) add_row(m, values, what);
  }
  check_matrix_shape(m.width, m.height, what);
  return m;
}

MatrixParameters parse_matrix_file(std::string_view text, const std::string& name) {
  const std::string what = "--matrix @" + name;
  const std::string_view separators = " \t\r,\"";
  std::vector<std::vector<std::string_view>> lines;
  for (std::string_view line : split_rows(text, "\n")) {
    const std::vector<std::string_view> values = split_values(line, separators);
    if (!values.empty() && values[0][0] != '#') lines.push_back(values);
  }
  if (lines.empty())
    throw UsageError(what + ": empty; its first line is WIDTH HEIGHT [SCALE [OFFSET]]");
  const std::vector<std::string_view>& header = lines[0];
  const auto side = [&](std::size_t k, const char* field) {
    const std::optional<Decimal> d = k < header.size() ? parse_decimal(header[k]) : std::nullopt;
    const double v = d ? d->value() : 0;
    if (!d || d->exponent < 0 || !(v >= 1 && v <= kMaxSeparableMatrix)) {
      throw UsageError(what + ": the first line must be WIDTH HEIGHT [SCALE [OFFSET]], " + field +
                       " a whole number from 1 to " + std::to_string(kMaxSeparableMatrix));
    }
    return static_cast<int>(v);
  };
  if (header.size() > 4) {
    throw UsageError(what + ": the first line holds " + std::to_string(header.size()) +
                     " values; it is WIDTH HEIGHT [SCALE [OFFSET]]");
  }
  const int width = side(0, "WIDTH"), height = side(1, "HEIGHT");
  check_matrix_shape(width, height, what);
  MatrixParameters m;
  if (header.size() > 2) {
    m.divisor = value_of(header[2], what, "SCALE");
    m.divisor_from = "SCALE of " + name;
  }
  if (header.size() > 3) m.offset = value_of(header[3], what, "OFFSET");
  if (lines.size() - 1 != static_cast<std::size_t>(height)) {
    throw UsageError(what + ": its first line says " + std::to_string(height) + " rows, it has " +
                     std::to_string(lines.size() - 1));
  }
  for (std::size_t r = 1; r < lines.size(); ++r) {
    if (lines[r].size() != static_cast<std::size_t>(width)) {
      throw UsageError(what + ": row " + std::to_string(r) + " has " +
                       std::to_string(lines[r].size()) + " values; its first line says " +
                       std::to_string(width));
    }
    add_row(m, lines[r], what);
  }
  return m;
}

MatrixParameters matrix_of_rows(const std::vector<std::vector<double>>& rows) {
  const std::string what = "matrix";
  MatrixParameters m;
  for (const std::vector<double>& row : rows) {
    if (m.height > 0 && row.size() != static_cast<std::size_t>(m.width)) {
      throw UsageError(what + ": row " + std::to_string(m.height + 1) + " has " +
                       std::to_string(row.size()) + " values, row 1 has " +
                       std::to_string(m.width) + ": every row needs the same number");
    }
    m.width = static_cast<int>(row.size());
    for (const double v : row) {
      if (!std::isfinite(v)) {
        throw UsageError(what + ": a value in row " + std::to_string(m.height + 1) +
                         " is not a finite number");
      }
      m.values.push_back(decimal_of(v));
    }
    ++m.height;
  }
  check_matrix_shape(m.width, m.height, what);
  return m;
}

}  // namespace gpublur
