// pipeline.hpp — one gpublur invocation: read, generate, compile, blur (GPU or CPU), write.
#pragma once

#include <iosfwd>

#include "request.hpp"

namespace gpublur {

/// What becomes of the GPU's context once the blur is done.
enum class ContextAtEnd {
  kRelease,      // released before run returns, like every other resource (tests, embedding)
  kLeaveToExit,  // left retained for the driver to tear down when the process exits (main:
                 // the exit costs about the same either way, so releasing first only adds the
                 // release itself; bench/RESULTS.md)
};

/// Whether run(request) may open a GPU context (to blur, or to find the architecture for
/// --dump-ptx): main then runs it in a worker process whose teardown nobody waits for.
bool may_open_gpu(const Request& request);

/// Runs the request the command line made. Reports on `err` (announcements, --verbose)
/// and writes dumps to `out` when asked for "-". Returns the exit code; throws gpublur::Error.
int run(const Request& request, std::ostream& out, std::ostream& err,
        ContextAtEnd context_at_end = ContextAtEnd::kRelease);

}  // namespace gpublur
