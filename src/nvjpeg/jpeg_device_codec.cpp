// jpeg_device_codec.cpp — a worker's nvJPEG behind the DeviceCodec interface.
#include "nvjpeg/jpeg_device_codec.hpp"

#include <optional>

#include "nvjpeg/gpu_jpeg.hpp"

namespace gpublur {
namespace {

class JpegDeviceCodec final : public DeviceCodec {
 public:
  // Owners in dependency order: the engine outlives the decoders and the encoder made from it.
  void start(const std::vector<std::uintptr_t>& streams, std::size_t max_stack) override {
    engine_.emplace();
    for (const std::uintptr_t stream : streams) {
      decoders_.push_back(std::make_unique<GpuJpegDecoder>(*engine_, stream));
      decoders_.back()->initialize(max_stack);
    }
    encoder_ = std::make_unique<GpuJpegEncoder>(*engine_);
  }

  std::string decoder() const override { return engine_ ? engine_->decoder() : std::string(); }

  std::vector<std::size_t> decode(std::size_t lane, const std::vector<CompressedImage>& images,
                                  const DevicePlaces& places, std::size_t batch, std::size_t spare,
                                  std::string& why) override {
    why = "nvJPEG does not decode it";
    try {
      return decoders_.at(lane)->decode(images, places.channels, places.device, places.pitch,
                                        places.image_bytes, batch, spare);
    } catch (const GpuJpegError& e) {
      why = e.what();
      std::vector<std::size_t> all;
      for (const CompressedImage& image : images) all.push_back(image.index);
      return all;
    }
  }

  std::vector<EncodedImage> encode(std::uintptr_t stream,
                                   const std::vector<ImageToEncode>& images) override {
    return encoder_->encode(stream, images);
  }

 private:
  std::optional<GpuJpegEngine> engine_;
  std::vector<std::unique_ptr<GpuJpegDecoder>> decoders_;
  std::unique_ptr<GpuJpegEncoder> encoder_;
};

}  // namespace

DeviceCodecFactory gpu_jpeg_codec() {
  return [] { return std::make_unique<JpegDeviceCodec>(); };
}

}  // namespace gpublur
