// jpeg_route.hpp — which JPEGs of a run the GPU decodes and encodes (nvJPEG), and which the
// CPU's threads do (libjpeg-turbo), as --codec asks. With gpu, every JPEG nvJPEG takes, and no
// nvJPEG is an error. With auto, the same in a batch large enough to pay for nvJPEG's start-up
// (codec_for_batch), with the CPU's codec where nvJPEG is not there; otherwise auto is cpu. While
// nvJPEG starts, auto gives a share of the files that arrive to the CPU's codec rather than keep
// them waiting (the pipeline's StartShare, start_share.hpp). Thread-safe.
#pragma once

#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

#include "batch/blur_device.hpp"
#include "batch/job_plan.hpp"
#include "batch/prepared_image.hpp"
#include "codecs/encode_options.hpp"
#include "image/decode_limits.hpp"

namespace gpublur {

/// Whether a run of `files` files, with `codec` as codec_for_batch resolved it, starts nvJPEG in
/// a JPEG worker of its own (GpuPool's `jpeg_workers`) and routes its JPEGs there.
constexpr bool starts_gpu_jpeg(JpegCodec codec, std::size_t files) {
  return codec != JpegCodec::kCpu && files > 1;
}

/// The batch's JPEG pixels from which auto takes the GPU's codec. nvJPEG's start-up costs a
/// process about 1.8 s more than libjpeg-turbo's, which the GPU's faster codec pays back per
/// pixel: on an H100 host the GPU's codec overtook the CPU's at about 800 1080p files and about
/// 200 4K files, both about 1.6 gigapixels (bench/RESULTS.md).
constexpr double kGpuJpegMinPixels = 1.6e9;

/// The batch's JPEG pixels from which nvJPEG starts on a second GPU. GPUs that start at once slow
/// each other's start (their contexts and nvJPEG's handles), which a GPU pays back only on a batch
/// that keeps it busy long enough: on two H100s a second GPU broke even at about this many
/// (bench/RESULTS.md, 2026-11-27).
constexpr double kGpuJpegSecondGpuPixels = 8e9;

/// How many of `gpus` GPUs (at least one) a batch of about `pixels` JPEG pixels starts nvJPEG on:
/// k of them from (k - 1) k / 2 times kGpuJpegSecondGpuPixels (a second from 8 gigapixels, a third
/// from 24, a fourth from 48). The more GPUs start at once, the later each is ready, so each GPU
/// more must be kept busy longer than the one before it (on four H100s the fourth did not pay at
/// 20,000 1080p files, nor the third at 10,000: bench/RESULTS.md, run 69).
std::size_t gpus_for_jpeg(double pixels, std::size_t gpus);

/// What --codec asks of a batch, and, where auto chose for a batch, why (for -v).
struct BatchCodec {
  JpegCodec codec = JpegCodec::kCpu;
  std::string why;
  double pixels = 0;  // the batch's JPEG pixels as estimated (0: not estimated; cpu, one image)
  bool only_jpeg = false;  // every file sampled for the estimate was a JPEG
};

/// `asked` as it applies to `jobs`: kCpu and kGpu as they are; kAuto stays kAuto (the GPU's
/// codec, libjpeg-turbo where nvJPEG is not there) where the batch's JPEG inputs hold at least
/// `min_pixels`, else becomes kCpu. A single image is kCpu. Its `pixels`: the estimate, for
/// gpus_for_jpeg, where the codec is not kCpu. The pixels are estimated from the
/// headers of up to 8 files spread through the batch (the first MiB of each is read): a folder's
/// photos tend to share a size, and reading every file twice would cost a network file system
/// dearly. A sampled file that cannot be read, is not a JPEG, or is not a regular file (a pipe's
/// bytes are the pipeline's to read), counts as no JPEG pixels.
BatchCodec codec_for_batch(JpegCodec asked, const std::vector<Job>& jobs,
                           const DecodeLimits& limits, double min_pixels = kGpuJpegMinPixels);

class JpegRoute {
 public:
  /// `codec`: as codec_for_batch resolved it.
  JpegRoute(JpegCodec codec, BlurDevice& device);

  /// Whether the run may give the GPU JPEGs (so that threads to wait for it are worth having).
  bool may_use_gpu() const { return codec_ != JpegCodec::kCpu; }

  /// Whether the GPU's decoder takes a JPEG nvJPEG supports: nvJPEG is there (with gpu: waiting
  /// for the GPUs' start-up) and, with auto, has started. Throws Error where --codec gpu finds no
  /// nvJPEG; otherwise false, and `why` says why not.
  bool takes_decode(std::string& why);

  /// With auto: whether nvJPEG is still starting (the GPUs' start-up, then its own), so that a
  /// JPEG the CPU would take now could go to the GPU once it has started. Never waits.
  bool gpu_codec_starting() const;

  /// Whether the GPU encodes this image as a JPEG: nvJPEG is there, and the image is 8-bit gray
  /// or RGB in the samples it will be written with. Throws as takes_decode.
  bool takes_encode(const PreparedImage& image);

  /// What decoded on the GPU, for the file's report: "nvjpeg hardware", ...
  static std::string gpu_codec_name(const std::string& decoder);

 private:
  bool available(std::string& why);
  const JpegCodec codec_;
  BlurDevice& device_;
  std::once_flag checked_;
  bool available_ = false;
  std::string why_not_;
};

}  // namespace gpublur
