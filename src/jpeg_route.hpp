// jpeg_route.hpp — which JPEGs of a run the GPU decodes and encodes (nvJPEG), and which the
// CPU's threads do (libjpeg-turbo), as --codec asks (effective_codec: auto is the CPU's for now).
// With gpu, every JPEG nvJPEG takes; what it does not take, and every file where nvJPEG is not
// there, is an error with gpu and the CPU's with cpu. Thread-safe.
#pragma once

#include <cstddef>
#include <mutex>
#include <string>

#include "blur_device.hpp"
#include "encode_options.hpp"
#include "prepared_image.hpp"

namespace gpublur {

class JpegRoute {
 public:
  /// `codec`: as effective_codec gives it.
  JpegRoute(JpegCodec codec, BlurDevice& device);

  /// Whether a JPEG might go to the GPU's decoder (so its header is worth reading first).
  bool considers_gpu() const { return codec_ == JpegCodec::kGpu; }

  /// Whether the GPU decodes a JPEG nvJPEG takes: nvJPEG is there. Waits for the GPUs' start-up.
  /// Throws Error where --codec gpu finds no nvJPEG. `why` says why not.
  bool take_decode(std::string& why);

  /// Whether the GPU encodes this image as a JPEG: nvJPEG is there, and the image is 8-bit gray
  /// or RGB in the samples it will be written with. Throws as take_decode.
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
