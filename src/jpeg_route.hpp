// jpeg_route.hpp — which JPEGs of a run the GPU decodes and encodes (nvJPEG), and which the
// CPU's threads do (libjpeg-turbo), as --codec asks. With `auto` every decoder works at once:
// the GPU's takes JPEGs while fewer than a limit of them wait for it, and the CPU's threads
// decode the rest, so where the GPU's decoder is the slower, the CPU's threads take the excess
// instead of waiting. Thread-safe.
#pragma once

#include <atomic>
#include <cstddef>
#include <mutex>
#include <string>

#include "blur_device.hpp"
#include "encode_options.hpp"
#include "prepared_image.hpp"

namespace gpublur {

class JpegRoute {
 public:
  /// `gpu_queue`: with kAuto, how many GPU-decoded JPEGs may be under way at once.
  JpegRoute(JpegCodec codec, BlurDevice& device, std::size_t gpu_queue);

  /// Whether a JPEG might go to the GPU's decoder (so its header is worth reading first).
  bool considers_gpu() const { return codec_ != JpegCodec::kCpu; }

  /// Whether the GPU decodes this JPEG: nvJPEG is there and, with kAuto, the GPU's queue has
  /// room. A true counts it as under way until finished(). Waits for the GPUs' start-up. Throws
  /// Error where --codec gpu finds no nvJPEG. `why` says why not.
  bool take_decode(std::string& why);
  /// The GPU-decoded JPEG is no longer under way (blurred, or handed back to the CPU).
  void finished();

  /// Whether the GPU encodes this image as a JPEG: nvJPEG is there, and the image is 8-bit gray
  /// or RGB in the samples it will be written with.
  bool takes_encode(const PreparedImage& image);

  /// What decodes and encodes on the GPU, for the file's report: "nvjpeg hardware", ...
  static std::string gpu_codec_name(const std::string& decoder);

 private:
  bool available(std::string& why);
  const JpegCodec codec_;
  BlurDevice& device_;
  const std::size_t gpu_queue_;
  std::once_flag checked_;
  bool available_ = false;
  std::string why_not_;
  std::atomic<std::size_t> under_way_{0};
};

}  // namespace gpublur
