// jpeg_route.cpp — auto's choice for a batch, and nvJPEG's availability, looked at once.
#include "batch/jpeg_route.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>

#include "base/errors.hpp"
#include "base/regular_file.hpp"
#include "codecs/image_format.hpp"
#include "codecs/jpeg_codec.hpp"
#include "nvjpeg/gpu_jpeg.hpp"

namespace gpublur {
namespace {

constexpr std::size_t kSampledFiles = 8;
// Enough for the headers of nearly any JPEG (EXIF and ICC segments are at most 64 KiB each), and
// for read_jpeg_facts' check that the data could hold the image's blocks up to 512 megapixels.
constexpr std::size_t kHeaderBytes = std::size_t{1} << 20;

// The pixels of the JPEG at `path`, from its headers; 0 for anything else.
double jpeg_pixels(const std::string& path, const DecodeLimits& limits) {
  if (path == "-") return 0;  // standard input is read once, by the pipeline
  // Regular files only: a pipe's bytes (a process substitution's), read here, would be gone for
  // the pipeline.
  const std::optional<FileStart> start = read_regular_file(path, kHeaderBytes);
  if (!start) return 0;
  const std::vector<std::uint8_t>& bytes = start->bytes;
  if (sniff_format(bytes.data(), bytes.size(), path) != ImageFormat::kJpeg) return 0;
  try {
    const JpegFacts facts = read_jpeg_facts(bytes.data(), bytes.size(), limits);
    return static_cast<double>(facts.width) * facts.height;
  } catch (const Error&) {
    return 0;  // damaged, or headers longer than kHeaderBytes: the pipeline will say
  }
}

std::string gigapixels(double pixels) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", pixels / 1e9);
  return text;
}

}  // namespace

std::size_t gpus_for_jpeg(double pixels, std::size_t gpus) {
  std::size_t k = 1;
  // The (k + 1)th GPU from k (k + 1) / 2 steps.
  while (k < gpus) {
    const double n = static_cast<double>(k);
    if (pixels < kGpuJpegSecondGpuPixels * n * (n + 1) / 2) break;
    ++k;
  }
  return k;
}

BatchCodec codec_for_batch(JpegCodec asked, const std::vector<Job>& jobs,
                           const DecodeLimits& limits, double min_pixels) {
  if (asked == JpegCodec::kCpu) return {asked, "", 0};
  if (jobs.size() < 2) return {asked == JpegCodec::kAuto ? JpegCodec::kCpu : asked, "", 0};
  const std::size_t sampled = std::min(jobs.size(), kSampledFiles);
  double pixels = 0;
  std::size_t jpegs = 0;
  for (std::size_t i = 0; i < sampled; ++i) {
    const double p = jpeg_pixels(jobs[i * jobs.size() / sampled].input, limits);
    pixels += p;
    jpegs += p > 0 ? 1 : 0;
  }
  const double estimate = pixels / static_cast<double>(sampled) * static_cast<double>(jobs.size());
  const bool only_jpeg = jpegs == sampled;
  if (asked == JpegCodec::kGpu) return {asked, "", estimate, only_jpeg};
  const bool gpu = estimate >= min_pixels;
  return {gpu ? JpegCodec::kAuto : JpegCodec::kCpu,
          std::string("--codec auto: ") + (gpu ? "gpu" : "cpu") + ", for about " +
              gigapixels(estimate) + " gigapixels of JPEG (estimated from " +
              std::to_string(sampled) + " files' headers; gpu from " + gigapixels(min_pixels) + ")",
          gpu ? estimate : 0, gpu && only_jpeg};
}

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
  if (codec_ == JpegCodec::kAuto) {  // without waiting: what arrives before nvJPEG, the CPU takes
    const GpuPool* pool = device_.gpus_if_started();
    if (!pool || !pool->codec_ready()) {
      why = "nvJPEG is starting";
      return false;
    }
  }
  if (available(why)) return true;
  if (codec_ == JpegCodec::kGpu)
    throw Error(why + "; leave out --codec gpu to use the CPU's JPEG codec");
  return false;
}

bool JpegRoute::gpu_codec_starting() const {
  if (codec_ != JpegCodec::kAuto) return false;
  std::string why;
  if (!gpu_jpeg_available(why)) return false;  // no nvJPEG to wait for
  if (device_.starting()) return true;
  const GpuPool* pool = device_.gpus_if_started();
  return pool && pool->codec_starting();
}

bool JpegRoute::takes_encode(const PreparedImage& image) {
  if (image.image.sample_format() != SampleFormat::k8 || image.srgb_bits != 0 ||
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
