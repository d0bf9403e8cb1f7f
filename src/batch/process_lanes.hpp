// process_lanes.hpp — a batch split over child processes, one per lane (a GPU, or a share of one).
// nvJPEG's decode calls on several GPUs hold each other up within one process, each GPU's taking
// several times the host time it takes in a process of its own, where the GPUs decode side by
// side (bench/RESULTS.md). Each child runs the whole pipeline on its share of the jobs and sends
// every file's result, its lines for the user and its GPU workers' clocks back through a
// pipe; the parent reports them as they come, as if one process had done it all.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "batch/file_result.hpp"
#include "batch/job_plan.hpp"
#include "gpu/gpu_worker.hpp"

namespace gpublur {

/// A line for the user: its text, whether it is a warning, whether only --verbose shows it.
using SayLine = std::function<void(const std::string& line, bool warning, bool verbose_only)>;

/// What one lane did besides its files.
struct LaneReport {
  std::vector<GpuWorkerStats> stats;
  bool used_cpu = false;  // some image was blurred on the CPU
};

/// Runs in a lane's child: blurs `jobs` as lane `lane`, reporting each file to `observer` (from
/// one thread at a time) and lines through `say` (from any thread).
using LaneMain = std::function<LaneReport(const std::vector<Job>& jobs, std::size_t lane,
                                          FileObserver& observer, const SayLine& say)>;

/// Forks `lanes` children, which must happen before this process starts a thread or opens a GPU
/// context. Child k runs `lane_main` on jobs k, k + lanes, ... Every result comes to `observer`
/// and every distinct line to `say`, on this thread, as they arrive. A stop signal
/// (stop_signals.hpp) is passed on to the children, which stop as one process would. A file a
/// child leaves unreported, by ending early, is reported failed. Waits for the children's work,
/// and for them to end only where `wait_for_exit` (their GPUs' teardown otherwise goes on
/// unwaited, as the detached exit's does). Returns nullopt where it cannot start the children:
/// the caller then runs the batch itself.
std::optional<LaneReport> run_in_lanes(const std::vector<Job>& jobs, std::size_t lanes,
                                       const LaneMain& lane_main, FileObserver& observer,
                                       const SayLine& say, bool wait_for_exit);

}  // namespace gpublur
