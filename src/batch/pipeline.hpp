// pipeline.hpp — the one pipeline every blur runs through; a single image is a batch of one:
//
//   jobs -> read + decode + prepare (CPU threads) -> blur (GPUs, or the CPU) -> finish + encode +
//   atomic write (CPU threads) -> report (one file at a time)
//
// JPEGs may skip the CPU's codecs (jpeg_route.hpp): the read stage parses the header only, the
// GPU decodes, blurs and encodes, and the write stage adds the metadata. Whatever nvJPEG does
// not take goes back to the CPU's codec, which decodes it (or reports it damaged) as ever.
//
// The stages are oneTBB's parallel_pipeline: a bounded number of images in flight (and a memory
// budget for large ones), so memory does not grow with the number of files and the slowest stage
// sets the pace; each stage takes whichever image is next. One file's failure is that file's
// result: reported, counted, never partial; the rest goes on. A stop signal (stop_signals.hpp)
// ends it early: nothing new starts, what is being written is finished whole.
#pragma once

#include <cstdint>
#include <vector>

#include "base/atomic_file.hpp"
#include "batch/blur_device.hpp"
#include "batch/file_result.hpp"
#include "batch/job_plan.hpp"
#include "codecs/encode_options.hpp"
#include "image/decode_limits.hpp"
#include "ops/blur_parameters.hpp"

namespace gpublur {

struct PipelineSettings {
  BlurParameters blur;
  EncodeOptions encode;
  DecodeLimits limits;
  bool strip_metadata = false;  // write no ICC profile, EXIF or density
  bool skip_existing = false;   // a job whose output existed when planned is skipped
  Durability durability = Durability::kRenamed;  // --fsync: kFlushed
  JpegCodec codec = JpegCodec::kCpu;  // who decodes and encodes JPEG: as codec_for_batch says
  unsigned threads = 0;               // CPU threads (0: all the process may use)
  /// The GPUs whose codec may take the batch's JPEGs (each needs its own images in flight).
  std::size_t gpus = 1;
  /// Images in flight stop growing past this many bytes (memory_budget.hpp; one image is always
  /// let in): a file's bytes until decoded, then its decoded image twice (it and its result).
  std::uint64_t memory_budget = std::uint64_t{1} << 30;
  /// A batch whose JPEGs are the CPU's (codec kCpu) blurs on the CPU while the GPUs start
  /// (--device auto): BlurDevice::blur_on_cpu_while_starting. (Where nvJPEG may take them, the
  /// CPU is left to its start instead: start_share.hpp.)
  bool cpu_while_gpus_start = false;
};

/// Runs every job; `observer` hears of each as it completes. Returns once all are done, failed,
/// skipped or (after a stop signal) left undone.
void run_pipeline(const std::vector<Job>& jobs, const PipelineSettings& settings,
                  BlurDevice& device, FileObserver& observer);

}  // namespace gpublur
