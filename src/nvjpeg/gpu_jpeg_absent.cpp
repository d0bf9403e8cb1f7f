// gpu_jpeg_absent.cpp — gpu_jpeg.hpp where the build found no nvjpeg.h: nvJPEG is never
// available, so every JPEG takes the CPU's codec (scripts/install-deps.sh fetches the header).
#include "nvjpeg/gpu_jpeg.hpp"

namespace gpublur {

bool gpu_jpeg_available(std::string& why, std::string*) {
  why = "this gpublur was built without nvJPEG's header (nvjpeg.h)";
  return false;
}

struct GpuJpegEngine::Impl {};
GpuJpegEngine::GpuJpegEngine() { throw GpuJpegError("built without nvJPEG"); }
GpuJpegEngine::~GpuJpegEngine() = default;
const std::string& GpuJpegEngine::decoder() const {
  static const std::string none;
  return none;
}

struct GpuJpegDecoder::Impl {};
GpuJpegDecoder::GpuJpegDecoder(GpuJpegEngine&, std::uintptr_t) {
  throw GpuJpegError("built without nvJPEG");
}
GpuJpegDecoder::~GpuJpegDecoder() = default;
void GpuJpegDecoder::initialize(std::size_t) {}
std::vector<std::size_t> GpuJpegDecoder::decode(const std::vector<CompressedImage>& jpegs, int,
                                                std::uintptr_t, std::size_t, std::size_t,
                                                std::size_t, std::size_t) {
  std::vector<std::size_t> all;
  for (const CompressedImage& j : jpegs) all.push_back(j.index);
  return all;
}

struct GpuJpegEncoder::Impl {};
GpuJpegEncoder::GpuJpegEncoder(GpuJpegEngine&) { throw GpuJpegError("built without nvJPEG"); }
GpuJpegEncoder::~GpuJpegEncoder() = default;
std::vector<EncodedImage> GpuJpegEncoder::encode(std::uintptr_t,
                                                const std::vector<ImageToEncode>& images) {
  std::vector<EncodedImage> out(images.size());
  for (EncodedImage& e : out) e.error = "built without nvJPEG";
  return out;
}

}  // namespace gpublur
