// pipeline.hpp — one gpublur invocation: read, generate, compile, blur (GPU or CPU), write.
#pragma once

#include <iosfwd>

#include "cli.hpp"

namespace gpublur {

/// Runs the options parsed from the command line. Reports on `err` (announcements, --verbose)
/// and writes dumps to `out` when asked for "-". Returns the exit code; throws gpublur::Error.
int run(const Options& options, std::ostream& out, std::ostream& err);

}  // namespace gpublur
