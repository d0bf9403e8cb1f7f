// cli.hpp — the command line: CLI11 options bound to a Request's typed fields, each enum's choices
// and help lines taken from its domain's name table, then every check CLI11 cannot make (odd
// size, finite sigma, known extension, ...) and the size/sigma rules applied. The result is a
// validated Request; nothing after this looks at the command line again.
#pragma once

#include <iosfwd>
#include <optional>

#include "app/request.hpp"

namespace gpublur {

/// A Request to run, or the exit code of a command line that ended the program here (--help
/// printed to `out`: 0; a parse error printed to `err` as one line: 2).
struct ParseResult {
  std::optional<Request> request;
  int exit_code = 0;
};

/// Parses and validates argv. Throws UsageError (exit code 2) for a command line that parses
/// but asks for something impossible, saying what to do instead.
ParseResult parse_command_line(int argc, const char* const* argv, std::ostream& out,
                               std::ostream& err);

}  // namespace gpublur
