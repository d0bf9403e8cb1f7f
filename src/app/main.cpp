// main.cpp — parse, run (in a worker process when a GPU may be used), and turn exceptions into
// "gpublur: error: ..." and an exit code.
#include <signal.h>

#include <cstdlib>
#include <iostream>
#include <optional>

#include "app/cli.hpp"
#include "app/run.hpp"
#include "base/detached_exit.hpp"
#include "base/errors.hpp"
#include "base/malloc_arenas.hpp"
#include "codecs/image_decode.hpp"
#include "gpu/gpu_blur.hpp"

namespace {

// Calls f, which returns an exit code; an exception becomes one line on stderr and its code.
template <typename F>
int reporting_errors(F&& f) {
  using namespace gpublur;
  try {
    return f();
  } catch (const CompileError& e) {
    std::cerr << "gpublur: error: " << printable(e.what()) << " (options: " << e.options() << ")\n"
              << e.log() << "\n"
              << "gpublur: rerun with --dump-source FILE to see the generated source\n";
    return e.exit_code();
  } catch (const Error& e) {  // printable: messages quote file names and option values
    std::cerr << "gpublur: error: " << printable(e.what()) << "\n";
    return e.exit_code();
  } catch (const std::exception& e) {
    std::cerr << "gpublur: error: internal: " << printable(e.what()) << "\n";
    return kExitFailure;
  }
}

}  // namespace

int main(int argc, char** argv) {
  using namespace gpublur;
  // A reader of standard output that goes away (`gpublur ... --json | head`) must not end the
  // process silently, mid-batch: the write fails with EPIPE instead, said once (standard_output).
  ::signal(SIGPIPE, SIG_IGN);
  std::optional<ParseResult> parsed;
  if (const int code = reporting_errors([&] {
        parsed = parse_command_line(argc, argv, std::cout, std::cerr);
        return kExitOk;
      })) {
    return code;
  }
  if (!parsed->request) return parsed->exit_code;
  const Request& request = *parsed->request;
  // The driver's default of 8 hardware work queues per context makes creating the context and
  // tearing it down at exit slower; where one is all the run can use, it asks for one. A value
  // the user set is kept. Set here, before any thread starts and before cuInit reads it.
  if (one_work_queue_suffices(request)) ::setenv("CUDA_DEVICE_MAX_CONNECTIONS", "1", 0);
  // Before any thread starts, as glibc's arenas are made by the threads' first allocations.
  share_malloc_arenas();
  // Split before any thread starts (the pipeline starts the GPU on one).
  std::optional<DetachedExit> worker;
  if (may_open_gpu(request) && !request.no_detach) worker = DetachedExit::split();
  // The context is left to the driver's exit handler, so the process ends by returning from
  // main (std::_Exit would skip that handler and leave the teardown to the kernel, which
  // measured slower).
  const int code = reporting_errors(
      [&] { return run(request, std::cout, std::cerr, ContextAtEnd::kLeaveToExit); });
  if (worker) {
    const bool detach = opened_shared_gpu_context();
    if (detach && request.verbose && worker->worker() != 0) {
      std::cerr << "gpublur: done; process " << worker->worker()
                << " goes on to release the GPU, unwaited (--no-detach waits)\n";
    }
    worker->finish(code, detach);
  }
  return code;
}
