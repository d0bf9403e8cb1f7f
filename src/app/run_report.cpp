// run_report.cpp — --timings and --json formatting.
#include "app/run_report.hpp"

#include <cstdio>
#include <ostream>

namespace gpublur {

std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += ch;
    }
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
