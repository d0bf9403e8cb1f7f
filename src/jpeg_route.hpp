// jpeg_route.hpp — which JPEGs of a run the GPU decodes and encodes (nvJPEG), and which the
// CPU's threads do (libjpeg-turbo), as --codec asks. With gpu, every JPEG nvJPEG takes, and no
// nvJPEG is an error. With auto every decoder works at once: the GPU takes JPEGs while fewer than
// a limit of them are under way on it, and the CPU's threads decode and encode the rest, so that
// where the GPU's codec is the limit the CPU's threads take the excess instead of waiting; without
// nvJPEG, auto is cpu. Thread-safe.
#pragma once

#include <atomic>
#include <cstddef>
#include <mutex>
#include <string>
#include <utility>

#include "blur_device.hpp"
#include "encode_options.hpp"
#include "prepared_image.hpp"

namespace gpublur {

class JpegRoute {
 public:
  /// `gpu_limit`: with kAuto, how many GPU-decoded JPEGs may be under way at once.
  JpegRoute(JpegCodec codec, BlurDevice& device, std::size_t gpu_limit);

  /// Whether a JPEG might go to the GPU's decoder (so its header is worth reading first).
  bool considers_gpu() const { return codec_ != JpegCodec::kCpu; }

  /// A JPEG the GPU's decoder was given, counted as under way until released or destroyed.
  class Share {
   public:
    Share() = default;
    Share(Share&& other) noexcept : route_(std::exchange(other.route_, nullptr)) {}
    Share& operator=(Share&& other) noexcept {
      release();
      route_ = std::exchange(other.route_, nullptr);
      return *this;
    }
    Share(const Share&) = delete;
    Share& operator=(const Share&) = delete;
    ~Share() { release(); }
    /// The JPEG is no longer under way on the GPU (blurred, or handed to the CPU's decoder).
    void release() {
      if (route_) --std::exchange(route_, nullptr)->under_way_;
    }
    bool held() const { return route_ != nullptr; }

   private:
    friend class JpegRoute;
    explicit Share(JpegRoute* route) : route_(route) {}
    JpegRoute* route_ = nullptr;
  };

  /// The GPU decodes a JPEG nvJPEG takes where nvJPEG is there and, with kAuto, fewer than the
  /// limit are under way: a held Share. Waits for the GPUs' start-up. Throws Error where --codec
  /// gpu finds no nvJPEG. Otherwise an empty Share, and `why` says why not.
  Share take_decode(std::string& why);

  /// Whether the GPU encodes this image as a JPEG: nvJPEG is there, the image is 8-bit gray or
  /// RGB in the samples it will be written with and, with kAuto, the GPU decoded it (what the CPU
  /// decoded, the CPU encodes: its own lane, beside the GPU's). Throws as take_decode.
  bool takes_encode(const PreparedImage& image, bool gpu_decoded);

  /// What decoded on the GPU, for the file's report: "nvjpeg hardware", ...
  static std::string gpu_codec_name(const std::string& decoder);

 private:
  bool available(std::string& why);
  const JpegCodec codec_;
  BlurDevice& device_;
  const std::size_t gpu_limit_;
  std::atomic<std::size_t> under_way_{0};
  std::once_flag checked_;
  bool available_ = false;
  std::string why_not_;
};

}  // namespace gpublur
