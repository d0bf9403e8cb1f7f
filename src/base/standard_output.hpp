// standard_output.hpp — writing to standard output, checked. SIGPIPE is ignored (main.cpp), so
// a reader that went away makes a write fail with EPIPE instead of ending the process silently
// (mid-batch, maybe mid-file), and a full disk (ENOSPC) is not lost either: both become
// StdoutError, with the reason. Thread-compatible: callers serialise their writes.
#pragma once

#include <iosfwd>
#include <string_view>

namespace gpublur {

/// Writes `text` to `out` and flushes it, so whoever reads sees it now (a --json line as its
/// file ends). Throws StdoutError where that, or an earlier write to `out`, failed.
void write_checked(std::ostream& out, std::string_view text);

/// Flushes `out`; throws StdoutError where that, or an earlier write to `out`, failed.
void flush_checked(std::ostream& out);

}  // namespace gpublur
