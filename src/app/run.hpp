// run.hpp — what a command does: print versions; generate and compile a kernel for the dumps; or
// blur, a single image or a batch, through the one pipeline (pipeline.hpp).
#pragma once

#include <iosfwd>

#include "app/request.hpp"

namespace gpublur {

/// What becomes of the GPUs' contexts once the blur is done.
enum class ContextAtEnd {
  kRelease,      // released before run returns, like every other resource (tests, embedding)
  kLeaveToExit,  // left retained for the driver to tear down when the process exits (main:
                 // the exit costs about the same either way, so releasing first only adds the
                 // release itself)
};

/// Whether run(request) may open a GPU context (to blur, or to find the architecture for
/// --dump-ptx): main then runs it in a worker process whose teardown nobody waits for.
bool may_open_gpu(const Request& request);

/// Whether one hardware work queue per GPU context is all the run can use: one image, blurred on
/// one stream, without nvJPEG (which drives the hardware JPEG engines from streams of its own).
/// Then main asks the driver for one (CUDA_DEVICE_MAX_CONNECTIONS=1), which makes the start-up
/// and teardown shorter. A batch keeps the driver's default: with one queue, every stream's work
/// waits behind every other's, and nvJPEG's batched decoder drove one of the GPU's hardware JPEG
/// engines at a time instead of all of them.
bool one_work_queue_suffices(const Request& request);

/// Runs the request the command line made. Reports on `err` (failures, announcements, progress,
/// --verbose) and writes --json and dumps asked for "-" to `out`. Returns the exit code: 0, 1 if a
/// file failed (2 where a single image's request cannot be done), 128 + the signal's number
/// after a stop signal. Throws gpublur::Error for what stops the whole run (usage, no GPU for
/// --device gpu with nothing to blur, ...), StdoutError where `out` could not be written (a
/// batch stops at the first such failure).
int run(const Request& request, std::ostream& out, std::ostream& err,
        ContextAtEnd context_at_end = ContextAtEnd::kRelease);

}  // namespace gpublur
