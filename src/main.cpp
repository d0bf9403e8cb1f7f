// main.cpp — parse, run, and turn exceptions into "gpublur: error: ..." and an exit code.
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "cli.hpp"
#include "errors.hpp"
#include "pipeline.hpp"

namespace {

// Ends the process without exit-time destructors and atexit handlers (the CUDA driver's and
// NVRTC's among them; the GPU context was released already, during the encoding): everything
// gpublur wrote is complete (files renamed, streams flushed below).
[[noreturn]] void finish(int code) {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  std::_Exit(code);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace gpublur;
  // gpublur uses one stream. The driver's default of 8 hardware work queues per context costs
  // about 90 ms of every run on an H100 host (creating the context and tearing it down at exit,
  // bench/RESULTS.md); one is all a single stream can use. A value the user set is kept. Set
  // here, before any thread starts and before cuInit reads it.
  ::setenv("CUDA_DEVICE_MAX_CONNECTIONS", "1", /*overwrite=*/0);
  try {
    const ParseResult parsed = parse_command_line(argc, argv, std::cout, std::cerr);
    if (!parsed.options) return parsed.exit_code;
    finish(run(*parsed.options, std::cout, std::cerr));
  } catch (const CompileError& e) {
    std::cerr << "gpublur: error: " << e.what() << " (options: " << e.options() << ")\n"
              << e.log() << "\n"
              << "gpublur: rerun with --dump-source FILE to see the generated source\n";
    return e.exit_code();
  } catch (const Error& e) {
    std::cerr << "gpublur: error: " << e.what() << "\n";
    return e.exit_code();
  } catch (const std::exception& e) {
    std::cerr << "gpublur: error: internal: " << e.what() << "\n";
    return kExitFailure;
  }
}
