// jpeg_route.cpp — nvJPEG's availability, looked at once, and the count of JPEGs the GPU holds.
#include "jpeg_route.hpp"

#include "errors.hpp"
#include "gpu_jpeg.hpp"

namespace gpublur {

JpegRoute::JpegRoute(JpegCodec codec, BlurDevice& device, std::size_t gpu_limit)
    : codec_(codec), device_(device), gpu_limit_(gpu_limit) {}

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

bool JpegRoute::considers_gpu() {
  return codec_ == JpegCodec::kGpu || (codec_ == JpegCodec::kAuto && device_.gpu_jpeg_ready());
}

JpegRoute::Share JpegRoute::take_decode(std::string& why) {
  if (codec_ == JpegCodec::kAuto && !device_.gpu_jpeg_ready()) {
    why = "the GPU's JPEG codec had not started";
    return {};
  }
  if (!available(why)) {
    if (codec_ == JpegCodec::kGpu)
      throw Error(why + "; leave out --codec gpu to use the CPU's JPEG codec");
    return {};
  }
  const std::size_t before = under_way_++;
  Share share(this);  // gives the count back unless returned
  if (codec_ == JpegCodec::kAuto && before >= gpu_limit_) {
    why = "the GPU's decoder was busy";
    return {};
  }
  return share;
}

bool JpegRoute::takes_encode(const PreparedImage& image, bool gpu_decoded) {
  if (codec_ == JpegCodec::kCpu || (codec_ == JpegCodec::kAuto && !gpu_decoded) ||
      image.format != SampleFormat::k8 || image.srgb_bits != 0 ||
      (image.spec.channels != 1 && image.spec.channels != 3)) {
    return false;
  }
  std::string why;
  if (available(why)) return true;
  if (codec_ == JpegCodec::kGpu)
    throw Error(why + "; leave out --codec gpu to use the CPU's JPEG codec");
  return false;
}

std::string JpegRoute::gpu_codec_name(const std::string& decoder) {
  return "nvjpeg " + (decoder.empty() ? std::string("gpu") : decoder);
}

}  // namespace gpublur
