// main.cpp — parse, run, and turn exceptions into "gpublur: error: ..." and an exit code.
#include <cstdlib>
#include <iostream>

#include "cli.hpp"
#include "errors.hpp"
#include "pipeline.hpp"

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
    // The context is left to the driver's exit handler, so main returns normally (std::_Exit
    // would skip that handler and leave the teardown to the kernel: 62-68 ms against 46 ms on
    // the H100 host, bench/RESULTS.md).
    return run(*parsed.options, std::cout, std::cerr, ContextAtEnd::kLeaveToExit);
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
