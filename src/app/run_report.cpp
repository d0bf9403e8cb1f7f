// run_report.cpp — --timings and --json formatting.
#include "app/run_report.hpp"

#include <cstdio>
#include <ostream>

#include "base/utf8.hpp"

namespace gpublur {

std::string json_string(const std::string& text) {
  std::string out = "\"";
  char escape[8];
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = utf8_sequence(text, i);
    if (n == 0) {  // a byte that is not UTF-8 (>= 0x80): a lone surrogate, as PEP 383 has it
      std::snprintf(escape, sizeof escape, "\\u%04x",
                    0xdc00u + static_cast<unsigned char>(text[i]));
      out += escape;
      ++i;
      continue;
    }
    const char32_t c = utf8_code_point(text, i, n);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (is_control(c)) {
      std::snprintf(escape, sizeof escape, "\\u%04x", static_cast<unsigned>(c));
      out += escape;
    } else {
      out.append(text, i, n);
    }
    i += n;
  }
  return out + "\"";
}

void RunReport::print_timings(std::ostream& err) const {
  char line[96];
  for (const auto& [name, ms] : stages) {
    std::snprintf(line, sizeof line, "gpublur: %-10s %9.3f ms\n", name.c_str(), ms);
    err << line;
  }
  std::snprintf(line, sizeof line, "gpublur: %-10s %9.3f ms\n", "total", total_ms);
  err << line;
}

std::string RunReport::to_json() const {
  std::string out = "{";
  for (const auto& [key, value] : facts) out += json_string(key) + ": " + value + ", ";
  out += "\"timings_ms\": {";
  char number[32];
  for (const auto& [name, ms] : stages) {
    std::snprintf(number, sizeof number, "%.3f", ms);
    out += json_string(name) + ": " + number + ", ";
  }
  std::snprintf(number, sizeof number, "%.3f", total_ms);
  return out + "\"total\": " + number + "}}";
}

}  // namespace gpublur
