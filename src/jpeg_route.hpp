// jpeg_route.hpp — which JPEGs of a run the GPU decodes and encodes (nvJPEG), and which the
// CPU's threads do (libjpeg-turbo), as --codec asks. With gpu, every JPEG nvJPEG takes, and no
// nvJPEG is an error. With auto, in a batch large enough to pay for nvJPEG's start-up
// (starts_gpu_jpeg), every decoder works at once: once the batch's JPEG worker has started nvJPEG
// (about a second; until then the CPU's threads take every file), the GPU takes JPEGs while fewer
// than a limit of them are under way on it, and the CPU's threads decode and encode the rest, so
// that where the GPU's codec is the limit they take the excess instead of waiting. Otherwise, and
// without nvJPEG, auto is cpu. Thread-safe.
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

/// Whether a run of `files` files starts nvJPEG in a JPEG worker of its own (GpuPool's
/// `jpeg_workers`). With gpu, any batch. With auto, a batch of at least 1000 files: nvJPEG's
/// start-up takes about a second, and on an H100 host the shared batch overtook libjpeg-turbo
/// alone only past about that many 1080p files (500: 0.86x, 2000: 1.17x; bench/RESULTS.md).
constexpr bool starts_gpu_jpeg(JpegCodec codec, std::size_t files) {
  return codec == JpegCodec::kGpu ? files > 1 : codec == JpegCodec::kAuto && files >= 1000;
}

class JpegRoute {
 public:
  /// `gpu_limit`: with kAuto, how many GPU-decoded JPEGs may be under way at once.
  JpegRoute(JpegCodec codec, BlurDevice& device, std::size_t gpu_limit);

  /// Whether the run may give the GPU JPEGs (so that threads to wait for it are worth having).
  bool may_use_gpu() const { return codec_ != JpegCodec::kCpu; }
  /// Whether a JPEG might go to the GPU's decoder now (so its header is worth reading first).
  /// Does not wait.
  bool considers_gpu();

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
