// jpeg_route.hpp — which JPEGs of a run the GPU decodes and encodes (nvJPEG), and which the
// CPU's threads do (libjpeg-turbo), as --codec asks. With gpu, every JPEG nvJPEG takes, and no
// nvJPEG is an error. With auto, the same in a batch large enough to pay for nvJPEG's start-up
// (starts_gpu_jpeg), with the CPU's codec where nvJPEG is not there; otherwise auto is cpu.
// Sharing a batch's JPEGs between the two (the CPU's threads taking files while nvJPEG starts,
// or beyond a number under way on the GPU) was measured slower than the GPU alone on an H100
// host, at every share tried: the GPU's path needs the host's cores for reading, nvJPEG's
// parsing and writing, and its start-up took half as long again beside the CPU's decoding
// (bench/RESULTS.md). Thread-safe.
#pragma once

#include <cstddef>
#include <mutex>
#include <string>

#include "blur_device.hpp"
#include "encode_options.hpp"
#include "prepared_image.hpp"

namespace gpublur {

/// Whether a run of `files` files starts nvJPEG in a JPEG worker of its own (GpuPool's
/// `jpeg_workers`) and routes its JPEGs there. With gpu, any batch. With auto, a batch of at
/// least 1000 files: nvJPEG's start-up takes about a second, and on an H100 host the GPU's codec
/// overtook libjpeg-turbo past about 800 1080p files (500: 0.7x, 2000: 1.7x; bench/RESULTS.md).
constexpr bool starts_gpu_jpeg(JpegCodec codec, std::size_t files) {
  return codec == JpegCodec::kGpu ? files > 1 : codec == JpegCodec::kAuto && files >= 1000;
}

class JpegRoute {
 public:
  /// `codec`: kAuto only where starts_gpu_jpeg holds (the caller makes it kCpu otherwise).
  JpegRoute(JpegCodec codec, BlurDevice& device);

  /// Whether the run may give the GPU JPEGs (so that threads to wait for it are worth having).
  bool may_use_gpu() const { return codec_ != JpegCodec::kCpu; }

  /// Whether the GPU's decoder takes a JPEG nvJPEG supports: nvJPEG is there. Waits for the GPUs'
  /// start-up. Throws Error where --codec gpu finds no nvJPEG; otherwise false, and `why` says
  /// why not.
  bool takes_decode(std::string& why);

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
