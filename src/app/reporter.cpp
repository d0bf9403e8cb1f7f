// reporter.cpp — failure lines, progress, --json lines and objects, summaries.
#include "app/reporter.hpp"

#include <unistd.h>

#include <cstdio>
#include <ostream>

#include "app/operation_report.hpp"
#include "app/run_report.hpp"
#include "base/standard_output.hpp"
#include "base/stop_signals.hpp"
#include "base/version.hpp"
#include "codecs/image_decode.hpp"

namespace gpublur {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string number(double v, int decimals = 3) {
  char text[48];
  std::snprintf(text, sizeof text, "%.*f", decimals, v);
  return text;
}

// A message as JSON: as it is said on stderr. (Paths are JSON strings of their own bytes.)
std::string json_text(const std::string& s) { return json_string(printable(s)); }

const char* status_name(FileResult::Status s) {
  switch (s) {
    case FileResult::Status::kDone:
      return "done";
    case FileResult::Status::kFailed:
      return "failed";
    case FileResult::Status::kSkipped:
      return "skipped";
    case FileResult::Status::kInterrupted:
      return "interrupted";
  }
  return "?";
}

// A worker's mark (steady_clock seconds, -1: never) in seconds since `start`, or null.
std::string moment(double at, std::chrono::steady_clock::time_point start) {
  if (at < 0) return "null";
  return number(at - std::chrono::duration<double>(start.time_since_epoch()).count());
}

std::string gpus_json(const std::vector<GpuWorkerStats>& gpus,
                      std::chrono::steady_clock::time_point start) {
  std::string s = "[";
  for (const GpuWorkerStats& g : gpus) {
    if (s.size() > 1) s += ", ";
    s += "{\"ordinal\": " + std::to_string(g.gpu.ordinal) +
         ", \"name\": " + json_string(g.gpu.name) + ", \"arch\": " + json_string(g.gpu.arch.sm()) +
         ", \"images\": " + std::to_string(g.images) +
         ", \"launches\": " + std::to_string(g.launches) + ", \"busy_ms\": " + number(g.busy_ms) +
         ", \"jpeg\": " + (g.takes_codec ? "true" : "false") +
         ", \"worker_ms\": {\"idle\": " + number(g.idle_ms) +
         ", \"launch\": " + number(g.launch_ms) + ", \"slot_wait\": " + number(g.slot_wait_ms) +
         ", \"gpu_wait\": " + number(g.gpu_wait_ms) + ", \"hand_back\": " + number(g.hand_back_ms) +
         ", \"first_launch\": " + number(g.first_launch_ms) +
         ", \"jpeg_start\": " + number(g.codec_start_ms) +
         ", \"decode_calls\": " + number(g.decode_call_ms) +
         ", \"encode_calls\": " + number(g.encode_call_ms) + "}" +
         ", \"ready_s\": {\"context\": " + moment(g.context_ready_at, start) +
         ", \"jpeg\": " + moment(g.codec_ready_at, start) +
         ", \"first_stack\": " + moment(g.first_stack_at, start) + "}" +
         (g.failure.empty() ? "" : ", \"failure\": " + json_text(g.failure)) + "}";
  }
  return s + "]";
}

// ', "shard": {...}' for a part of a batch, so per-part summaries can be merged and checked.
std::string shard_json(const Request& r) {
  if (!r.shard) return "";
  return ", \"shard\": {\"index\": " + std::to_string(r.shard->index) +
         ", \"count\": " + std::to_string(r.shard->count) +
         ", \"source\": " + json_text(r.shard->source) + "}";
}

}  // namespace

// A file's failure as said on stderr: in a batch, named by its file where the message does not
// name it (an 8-bit input for --format hdr), as its warnings are.
std::string Reporter::failure(const FileResult& r) const {
  const std::string input = printable(r.job.input);
  if (single_run_ || r.error.find(input) != std::string::npos) return r.error;
  return input + ": " + r.error;
}

Reporter::Reporter(const Request& request, bool single, std::size_t total, std::ostream& out,
                   std::ostream& err)
    : request_(request),
      spec_(make_blur_spec(request.blur, request.channels)),
      single_run_(single),
      total_(total),
      out_(out),
      err_(err),
      progress_(!single && !request.quiet && ::isatty(STDERR_FILENO)) {}

void Reporter::say(const std::string& line, bool warning, bool verbose_only) {
  if (verbose_only && !request_.verbose) return;
  const std::lock_guard<std::mutex> lock(mutex_);
  if (progress_shown_)
    err_ << "\r\033[K";  // clear the progress line; it comes back on the next file
  progress_shown_ = false;
  err_ << "gpublur: " << (warning ? "warning: " : "") << printable(line) << "\n" << std::flush;
}

void Reporter::file_done(const FileResult& r) {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (progress_shown_) err_ << "\r\033[K";
  progress_shown_ = false;
  switch (r.status) {
    case FileResult::Status::kDone:
      ++totals_.done;
      break;
    case FileResult::Status::kFailed:
      ++totals_.failed;
      if (totals_.exit_code == kExitOk) totals_.exit_code = r.exit_code;
      if (first_time_locked("error: " + r.error)) err_ << "gpublur: error: " << failure(r) << "\n";
      break;
    case FileResult::Status::kSkipped:
      ++totals_.skipped;
      break;
    case FileResult::Status::kInterrupted:
      ++totals_.interrupted;
      break;
  }
  totals_.bytes_in += r.bytes_in;
  totals_.bytes_out += r.bytes_out;
  if (!r.warning.empty() && first_time_locked("warning: " + printable(r.warning))) {
    err_ << "gpublur: warning: " << (single_run_ ? "" : printable(r.job.input) + ": ")
         << printable(r.warning) << "\n";
  }
  if (request_.verbose && r.status == FileResult::Status::kDone) {
    const std::string prefix =
        single_run_ ? "gpublur: " : "gpublur: " + printable(r.job.input) + ": ";
    for (const std::string& note : r.notes) err_ << prefix << printable(note) << "\n";
    if (!single_run_) {
      err_ << prefix << r.width << "x" << r.height << ", " << r.channels << " channels, " << r.bits
           << "-bit " << r.format_in << "; blurred on the " << r.device << "; " << r.bytes_out
           << " bytes written\n";
    }
  }
  if (single_run_) {
    single_ = r;
  } else if (request_.json) {
    emit_locked(file_json(r) + "\n");
  }
  err_.flush();
  if (progress_) progress_locked(false);
}

// Standard output's first failure ends the run's reporting there: the run stops, and says why
// once, at its end (run.cpp), with its exit code.
void Reporter::emit_locked(const std::string& text) {
  if (output_error_) return;
  try {
    write_checked(out_, text);
  } catch (const StdoutError& e) {
    output_error_ = e;
    request_stop();
  }
}

// Whether `message` ("error: ..." or "warning: ...") is new; counts it either way.
bool Reporter::first_time_locked(const std::string& message) {
  const auto [at, added] = said_.try_emplace(message, 0);
  ++at->second;
  if (added) said_in_order_.push_back(&at->first);
  return added;
}

// "gpublur: error: <message> (400 files)" for each message said once for several files.
void Reporter::say_repeats_locked() {
  for (const std::string* message : said_in_order_) {
    const std::size_t count = said_.at(*message);
    if (count > 1) err_ << "gpublur: " << *message << " (" << count << " files)\n";
  }
}

void Reporter::progress_locked(bool final) {
  const auto now = std::chrono::steady_clock::now();
  if (!final && now - last_progress_ < std::chrono::milliseconds(100)) return;
  last_progress_ = now;
  const std::size_t finished =
      totals_.done + totals_.failed + totals_.skipped + totals_.interrupted;
  const double seconds = seconds_since(start_);
  const double rate = seconds > 0 ? static_cast<double>(totals_.done) / seconds : 0;
  err_ << "\r\033[Kgpublur: " << finished << "/" << total_;
  if (totals_.failed) err_ << " (" << totals_.failed << " failed)";
  err_ << ", " << number(rate, 1) << " images/s";
  if (rate > 0 && finished < total_) {
    err_ << ", " << number(static_cast<double>(total_ - finished) / rate, 0) << " s left";
  }
  err_ << std::flush;
  progress_shown_ = true;
}

std::string Reporter::file_json(const FileResult& r) const {
  std::string s = "{\"input\": " + json_string(r.job.input) +
                  ", \"output\": " + json_string(r.job.output) +
                  ", \"status\": " + json_string(status_name(r.status));
  if (r.status == FileResult::Status::kFailed) s += ", \"error\": " + json_text(r.error);
  s += ", \"bytes_in\": " + std::to_string(r.bytes_in) +
       ", \"bytes_out\": " + std::to_string(r.bytes_out);
  if (r.width > 0) {
    s += ", \"width\": " + std::to_string(r.width) + ", \"height\": " + std::to_string(r.height) +
         ", \"channels\": " + std::to_string(r.channels) + ", \"bits\": " + std::to_string(r.bits) +
         ", \"format_in\": " + json_string(r.format_in) +
         ", \"format_out\": " + json_string(std::string(format_name(r.job.format)));
  }
  if (!r.device.empty()) s += ", \"device\": " + json_string(r.device);
  if (r.stacked > 0) s += ", \"stacked\": " + std::to_string(r.stacked);
  if (!r.decoder.empty()) s += ", \"decoder\": " + json_string(r.decoder);
  if (!r.encoder.empty()) s += ", \"encoder\": " + json_string(r.encoder);
  // When the file was finished, in seconds since the run began: with "device", the batch's
  // timeline (which files the CPU took while nvJPEG started, when the GPUs took over).
  s += ", \"done_s\": " + number(seconds_since(start_));
  s += ", \"ms\": {";
  for (std::size_t i = 0; i < r.stages.size(); ++i) {
    s += (i ? ", " : "") + json_string(r.stages[i].first) + ": " + number(r.stages[i].second);
  }
  return s + "}}";
}

std::string Reporter::parameters_json() const {
  std::string s;
  for (const auto& [key, value] : operation_facts(request_.blur, spec_)) {
    s += (s.empty() ? "" : ", ") + json_string(key) + ": " + value;
  }
  return s;
}

void Reporter::finish(const std::vector<GpuWorkerStats>& gpus, const std::string& device,
                      const std::string& kernel_json) {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (single_run_) {
    finish_single(gpus, kernel_json);
  } else {
    finish_batch(gpus, device);
  }
}

// The single-image report, as it always was: --timings' table, --json's object.
void Reporter::finish_single(const std::vector<GpuWorkerStats>& gpus,
                             const std::string& kernel_json) {
  const FileResult& r = single_;
  RunReport report;
  for (const auto& [name, ms] : r.stages) report.stage(name, ms);
  report.total_ms = seconds_since(start_) * 1000;
  if (request_.timings) report.print_timings(err_);
  if (!request_.json) return;
  report.fact("gpublur", json_string(kVersion));
  if (r.width > 0) {
    report.fact("input", "{\"path\": " + json_string(r.job.input) + ", \"format\": " +
                             json_string(r.format_in) + ", \"bits\": " + std::to_string(r.bits) +
                             ", \"width\": " + std::to_string(r.width) +
                             ", \"height\": " + std::to_string(r.height) +
                             ", \"channels\": " + std::to_string(r.channels) +
                             ", \"conversion\": " + json_text(r.conversion) + "}");
  }
  report.fact("output", json_string(r.job.output));
  for (const auto& [key, value] : operation_facts(request_.blur, spec_)) report.fact(key, value);
  report.fact("device", json_string(r.device.empty() ? "none" : r.device));
  if (!r.decoder.empty()) report.fact("decoder", json_string(r.decoder));
  if (!r.encoder.empty()) report.fact("encoder", json_string(r.encoder));
  if (!gpus.empty()) {
    const GpuInfo& g = gpus.front().gpu;
    report.fact("gpu",
                "{\"name\": " + json_string(g.name) + ", \"arch\": " + json_string(g.arch.sm()) +
                    ", \"driver\": " + json_string(driver_version_string(g.driver_version)) + "}");
  }
  if (!kernel_json.empty()) report.fact("kernel", kernel_json);
  emit_locked(report.to_json() + "\n");
}

std::string Reporter::summary_json(const std::vector<GpuWorkerStats>& gpus,
                                   const std::string& device, double seconds, double rate) const {
  const RunTotals& t = totals_;
  std::string s = "{\"summary\": {\"files\": " + std::to_string(total_);
  s += ", \"done\": " + std::to_string(t.done) + ", \"failed\": " + std::to_string(t.failed);
  s += ", \"skipped\": " + std::to_string(t.skipped);
  s += ", \"interrupted\": " + std::to_string(t.interrupted);
  s += ", \"seconds\": " + number(seconds) + ", \"images_per_second\": " + number(rate, 2);
  s += ", \"bytes_in\": " + std::to_string(t.bytes_in);
  s += ", \"bytes_out\": " + std::to_string(t.bytes_out);
  s += ", \"device\": " + json_string(device) + ", \"gpus\": " + gpus_json(gpus, start_);
  s += shard_json(request_) + ", " + parameters_json();
  return s + ", \"gpublur\": " + json_string(kVersion) + "}}\n";
}

void Reporter::finish_batch(const std::vector<GpuWorkerStats>& gpus, const std::string& device) {
  if (progress_shown_) err_ << "\r\033[K";
  progress_shown_ = false;
  say_repeats_locked();
  const double seconds = seconds_since(start_);
  const double rate = seconds > 0 ? static_cast<double>(totals_.done) / seconds : 0;
  if (!request_.quiet) {
    err_ << "gpublur: " << totals_.done << " blurred";
    if (totals_.failed) err_ << ", " << totals_.failed << " failed";
    if (totals_.skipped) err_ << ", " << totals_.skipped << " skipped (output already there)";
    if (totals_.interrupted) err_ << ", " << totals_.interrupted << " not done (interrupted)";
    err_ << " of " << total_ << " in " << number(seconds, 2) << " s (" << number(rate, 1)
         << " images/s) on ";
    if (device.find("gpu") != std::string::npos && !gpus.empty()) {
      err_ << gpus.size() << (gpus.size() == 1 ? " GPU (" : " GPU workers (")
           << gpus.front().gpu.name << ")";
      if (device == "gpu+cpu") err_ << " and the CPU";
    } else {
      err_ << "the CPU";
    }
    err_ << "\n";
  }
  if (request_.json) {
    emit_locked(summary_json(gpus, device, seconds, rate));
  }
  err_.flush();
}

}  // namespace gpublur
