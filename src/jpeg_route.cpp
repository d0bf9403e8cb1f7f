// jpeg_route.cpp — nvJPEG's availability, looked at once.
#include "jpeg_route.hpp"

#include "errors.hpp"
#include "gpu_jpeg.hpp"

namespace gpublur {

JpegRoute::JpegRoute(JpegCodec codec, BlurDevice& device) : codec_(codec), device_(device) {}

bool JpegRoute::available(std::string& why) {
  std::call_once(checked_, [&] {
    if (codec_ == JpegCodec::kCpu) {
      why_not_ = "--codec cpu";
      return;
    }
    std::string gpus_why;
    if (!device_.gpus(gpus_why)) {
      why_not_ = "no GPU: " + gpus_why;
    } else {
      available_ = gpu_jpeg_available(why_not_);
    }
    if (!available_ && codec_ == JpegCodec::kGpu) why_not_ = "--codec gpu: " + why_not_;
  });
  why = why_not_;
  return available_;
}

bool JpegRoute::takes_decode(std::string& why) {
  if (codec_ == JpegCodec::kCpu) {
    why = "--codec cpu";
    return false;
  }
  if (available(why)) return true;
  if (codec_ == JpegCodec::kGpu)
    throw Error(why + "; leave out --codec gpu to use the CPU's JPEG codec");
  return false;
}

bool JpegRoute::takes_encode(const PreparedImage& image) {
  if (image.format != SampleFormat::k8 || image.srgb_bits != 0 ||
      (image.spec.channels != 1 && image.spec.channels != 3)) {
    return false;
  }
  std::string why;
  return takes_decode(why);
}

std::string JpegRoute::gpu_codec_name(const std::string& decoder) {
  return "nvjpeg " + (decoder.empty() ? std::string("gpu") : decoder);
}

}  // namespace gpublur
