// parse_args.hpp — test support: a Request from command-line words, through the real parser.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/cli.hpp"

namespace gpublur::test {

/// The Request `gpublur args...` makes; throws what parsing throws (UsageError), or
/// std::runtime_error where the parser ends the program instead (a parse error, --help).
inline Request parse_args(const std::vector<std::string>& args) {
  std::vector<const char*> argv{"gpublur"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  const ParseResult parsed =
      parse_command_line(static_cast<int>(argv.size()), argv.data(), out, err);
  if (!parsed.request) throw std::runtime_error("no request: " + err.str() + out.str());
  return *parsed.request;
}

}  // namespace gpublur::test
