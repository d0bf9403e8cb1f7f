// file_result.hpp — what became of one file of a run: done, failed (and why), skipped, or left
// undone by an interruption; its sizes, where it was blurred, and each stage's wall time. The
// pipeline fills one per job; reporters (progress, --json, --timings) read them. Plain data.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "base/errors.hpp"
#include "batch/job_plan.hpp"
#include "image/image.hpp"
#include "ops/blur_spec.hpp"

namespace gpublur {

struct FileResult {
  enum class Status { kDone, kFailed, kSkipped, kInterrupted };
  Job job;
  Status status = Status::kDone;
  std::string error;        // kFailed: the one-line message (already printable)
  int exit_code = kExitOk;  // kFailed: the error's (kExitUsage where the request cannot be done)

  std::uint64_t bytes_in = 0, bytes_out = 0;
  int width = 0, height = 0, channels = 0, bits = 0;  // as decoded
  std::string format_in;                              // as decoded
  std::string device;                                 // "gpu" or "cpu"
  std::string decoder, encoder;  // JPEG's codecs: "nvjpeg hardware", "libjpeg-turbo", ...; else ""
  int stacked = 0;               // on a GPU: the images in its launch
  std::vector<std::pair<std::string, double>> stages;  // wall milliseconds, in order
  std::vector<std::string> notes;                      // conversions, metadata not kept (--verbose)
  std::string warning;                                 // said on stderr whatever the verbosity
  std::string conversion;                              // what the input lost on the way (--json)

  // What its blur computed (set once prepared), for the single image's --dump-source/--dump-ptx.
  BlurSpec spec;
  SampleFormat samples = SampleFormat::k8;
  std::string kernel_key;
};

/// Receives each file's result as it completes (in no particular order), from one thread at a time.
class FileObserver {
 public:
  virtual ~FileObserver() = default;
  virtual void file_done(const FileResult& result) = 0;
};

}  // namespace gpublur
