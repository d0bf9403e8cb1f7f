// reporter.hpp — what a run tells its user, as files complete. Every failure: one line on stderr
// ("gpublur: error: <what>: <why>"), whatever else is asked. A batch: a progress line on a
// terminal (done/total, images/s, time left; not with --quiet or when stderr is not a terminal),
// --json's one line per file on stdout (each flushed as its file ends), and a summary at the end. A
// failure or warning that repeats word for word (one that holds for every file, such as an 8-bit
// input for --format hdr) is said once, and how many files it held for at the end. A
// single image: --timings' table and --json's object, as they always were. Thread-safe: messages
// from any thread (compiles, the CPU taking over) are printed whole, between progress updates.
#pragma once

#include <chrono>
#include <cstddef>
#include <iosfwd>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "app/request.hpp"
#include "base/errors.hpp"
#include "batch/file_result.hpp"
#include "gpu/gpu_pool.hpp"

namespace gpublur {

struct RunTotals {
  std::size_t done = 0, failed = 0, skipped = 0, interrupted = 0;
  std::uint64_t bytes_in = 0, bytes_out = 0;
  int exit_code = kExitOk;  // of the first failure
};

class Reporter final : public FileObserver {
 public:
  /// `single`: the single-image command's report; else a batch's of `total` files.
  Reporter(const Request& request, bool single, std::size_t total, std::ostream& out,
           std::ostream& err);

  void file_done(const FileResult& result) override;

  /// One message on stderr ("gpublur: " + line, or "gpublur: warning: " + line); `verbose_only`:
  /// only with --verbose.
  void say(const std::string& line, bool warning = false, bool verbose_only = false);

  /// The end of the run: the summary (a batch), or --timings and --json (a single image).
  /// `gpus`: what each GPU did (empty: none opened); `device`: "gpu", "cpu" or "gpu+cpu".
  void finish(const std::vector<GpuWorkerStats>& gpus, const std::string& device,
              const std::string& kernel_json);

  const RunTotals& totals() const { return totals_; }
  /// Why standard output could not be written, if it could not (after finish). The first such
  /// failure asks the run to stop (request_stop): nothing more could be reported.
  const std::optional<StdoutError>& output_error() const { return output_error_; }
  /// The one file of a single-image run (after finish).
  const FileResult& single_result() const { return single_; }

 private:
  void progress_locked(bool final);
  void emit_locked(const std::string& text);
  bool first_time_locked(const std::string& message);
  void say_repeats_locked();
  std::string file_json(const FileResult& r) const;
  std::string failure(const FileResult& r) const;
  std::string parameters_json() const;
  std::string summary_json(const std::vector<GpuWorkerStats>& gpus, const std::string& device,
                           double seconds, double rate) const;
  void finish_single(const std::vector<GpuWorkerStats>& gpus, const std::string& kernel_json);
  void finish_batch(const std::vector<GpuWorkerStats>& gpus, const std::string& device);

  const Request& request_;
  const FilterSpec spec_;  // what --json reports the filter computes (its channels aside)
  const bool single_run_;
  const std::size_t total_;
  std::ostream& out_;
  std::ostream& err_;
  const bool progress_;
  const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::mutex mutex_;  // guards everything below and the streams
  RunTotals totals_;
  FileResult single_;
  bool progress_shown_ = false;
  std::optional<StdoutError> output_error_;
  std::map<std::string, std::size_t> said_;        // each failure and warning: how often
  std::vector<const std::string*> said_in_order_;  // its keys, as they first came
  std::chrono::steady_clock::time_point last_progress_{};
};

}  // namespace gpublur
