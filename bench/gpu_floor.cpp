// gpu_floor.cpp — the least a process that blurs on the GPU must spend: load the driver,
// cuInit, retain the primary context, release it, exit. No image, no kernel. e2e_bench.py and
// startup_probe.py run it beside gpublur, so the whole-process times can be read against the
// driver's own start-up and teardown on the same machine in the same run. Like gpublur, it asks
// for one work queue (CUDA_DEVICE_MAX_CONNECTIONS=1) unless the environment says otherwise, and
// by default it ends as gpublur does: the context still retained, main returning, the driver's
// exit handler tearing it down.
//
//   gpublur_gpu_floor [--upto none|init|context] [--release] [--quick-exit] [--nvrtc] [--detach]
//                     [--timeline]
//     --upto      how far to go: nothing at all (the process and its libraries), the driver
//                 loaded and cuInit, or the primary context retained (default)
//     --release   release the context before exiting
//     --quick-exit end with std::_Exit, skipping exit-time destructors and the driver's exit
//                 handler (the kernel then undoes what the driver had not)
//     --nvrtc     also load NVRTC on another thread and ask its version, as gpublur does for
//                 its cache key (its libraries are then unloaded at the exit, or not with _Exit)
//     --detach    run as gpublur does by default: in a worker process whose parent exits once
//                 the work is done, leaving the teardown unwaited (detached_exit.hpp); the
//                 worker's marks after that go to /dev/null
//     --timeline  print each step's end on stderr, in ms since main began; or, where the
//                 environment has GPU_FLOOR_SPAWN_NS (the parent's CLOCK_MONOTONIC just before
//                 it started this process, in ns), in ms since then, main's start included;
//                 also two exit handlers' runs: one registered before the driver loads (glibc
//                 runs it after every handler registered later), one after the context
// Exit status 0, or 1 without a GPU, or 2 for a usage error.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <memory>
#include <optional>
#include <string>

#include "base/detached_exit.hpp"
#include "gpu/gpu_blur.hpp"
#include "jit/nvrtc.hpp"

namespace {

struct Options {
  enum class Upto { kNone, kInit, kContext } upto = Upto::kContext;
  bool release = false;
  bool quick_exit = false;
  bool nvrtc = false;
  bool detach = false;
  bool timeline = false;
};

bool parse(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--release") {
      o.release = true;
    } else if (a == "--quick-exit") {
      o.quick_exit = true;
    } else if (a == "--nvrtc") {
      o.nvrtc = true;
    } else if (a == "--detach") {
      o.detach = true;
    } else if (a == "--timeline") {
      o.timeline = true;
    } else if (a == "--upto" && i + 1 < argc) {
      const std::string v = argv[++i];
      if (v == "none") {
        o.upto = Options::Upto::kNone;
      } else if (v == "init") {
        o.upto = Options::Upto::kInit;
      } else if (v == "context") {
        o.upto = Options::Upto::kContext;
      } else {
        return false;
      }
    } else {
      return false;
    }
  }
  return true;
}

// steady_clock is CLOCK_MONOTONIC on Linux, the clock of Python's time.monotonic_ns().
class Timeline {
 public:
  explicit Timeline(bool on) : on_(on), start_(std::chrono::steady_clock::now()) {
    if (const char* spawn = std::getenv("GPU_FLOOR_SPAWN_NS")) {
      start_ = std::chrono::steady_clock::time_point(std::chrono::nanoseconds(std::strtoll(spawn, nullptr, 10)));
      origin_ = "spawn";
      mark("main");
    }
  }
  void mark(const char* step) const {
    if (!on_) return;
    const std::chrono::duration<double, std::milli> t = std::chrono::steady_clock::now() - start_;
    std::fprintf(stderr, "gpublur_gpu_floor: %-8s %8.2f ms since %s\n", step, t.count(), origin_);
  }

 private:
  bool on_;
  std::chrono::steady_clock::time_point start_;
  const char* origin_ = "main";
};

// The exit handlers' marks (--timeline): whether the driver's teardown runs between them shows
// where it runs, and so what a handler registered before the driver could overlap with it.
const Timeline* g_timeline = nullptr;
void mark_exit_before_driver() { g_timeline->mark("atexit-b"); }
void mark_exit_after_context() { g_timeline->mark("atexit-a"); }

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parse(argc, argv, o)) {
    std::fprintf(stderr,
                 "usage: gpublur_gpu_floor [--upto none|init|context] [--release] [--quick-exit] "
                 "[--nvrtc] [--detach] [--timeline]\n");
    return 2;
  }
  std::optional<gpublur::DetachedExit> worker;
  if (o.detach) worker = gpublur::DetachedExit::split();
  static const Timeline timeline(o.timeline);
  g_timeline = &timeline;
  std::atexit(mark_exit_before_driver);
  ::setenv("CUDA_DEVICE_MAX_CONNECTIONS", "1", /*overwrite=*/0);
  std::unique_ptr<gpublur::GpuSession> session;
  std::future<gpublur::NvrtcVersion> nvrtc;
  if (o.nvrtc) nvrtc = std::async(std::launch::async, gpublur::nvrtc_version);
  if (o.upto != Options::Upto::kNone) {
    std::string why;
    const auto gpu = gpublur::probe_gpu(why);
    if (!gpu) {
      std::fprintf(stderr, "gpublur_gpu_floor: no GPU: %s\n", why.c_str());
      return 1;
    }
    timeline.mark("cuInit");
    if (o.upto == Options::Upto::kContext) {
      session = std::make_unique<gpublur::GpuSession>(*gpu);
      timeline.mark("context");
    }
  }
  std::atexit(mark_exit_after_context);
  if (!o.release) {
    static_cast<void>(session.release());  // retained to the end, as gpublur leaves it
  } else if (session) {
    session.reset();
    timeline.mark("released");
  }
  if (nvrtc.valid()) {
    static_cast<void>(nvrtc.get());
    timeline.mark("nvrtc");
  }
  timeline.mark("exit");
  std::fflush(nullptr);
  if (worker) worker->finish(0, gpublur::opened_shared_gpu_context());
  if (o.quick_exit) std::_Exit(0);
  return 0;
}
