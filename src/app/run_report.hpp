// run_report.hpp — what one invocation did and how long each stage took, for --timings
// (a table on stderr) and --json (one object on stdout). Plain data plus formatting.
#pragma once

#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

namespace gpublur {

struct RunReport {
  // Wall milliseconds per stage, in the order they happened. "init" is the time the pipeline
  // waited for the GPU after decoding (start-up runs in parallel with decode).
  std::vector<std::pair<std::string, double>> stages;
  double total_ms = 0;

  // Facts, each a JSON member: key and already-encoded JSON value.
  std::vector<std::pair<std::string, std::string>> facts;

  void stage(const std::string& name, double ms) { stages.emplace_back(name, ms); }
  void fact(const std::string& key, const std::string& json_value) {
    facts.emplace_back(key, json_value);
  }

  void print_timings(std::ostream& err) const;
  std::string to_json() const;
};

/// JSON string literal for `text`, quotes and escapes included, valid UTF-8 whatever `text`
/// holds: its UTF-8 as it is, control characters (C0, DEL, C1) as \u00XX, and each byte that is
/// not UTF-8 as a lone surrogate \udcXX (PEP 383's "surrogateescape"), so that a path comes back
/// byte for byte: Python's os.fsencode(json.loads(line)["input"]).
std::string json_string(const std::string& text);

}  // namespace gpublur
