// blur_device.cpp — GPU start-up on a thread, and the CPU when the GPUs cannot blur.
#include "batch/blur_device.hpp"

#include <tbb/task_arena.h>

#include <algorithm>
#include <chrono>

#include "base/errors.hpp"
#include "base/large_buffer.hpp"
#include "cpu/cpu_blur.hpp"
#include "jit/nvrtc.hpp"
#include "nvjpeg/jpeg_device_codec.hpp"

namespace gpublur {
namespace {

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

// The GPUs `ordinals` name among those the driver shows (empty: all), at most `limit` of them.
std::vector<GpuInfo> selected(const std::vector<GpuInfo>& all, const std::vector<int>& ordinals,
                              std::size_t limit, std::string& why) {
  std::vector<GpuInfo> chosen;
  if (ordinals.empty()) {
    chosen = all;
  } else {
    for (const int ordinal : ordinals) {
      if (ordinal < 0 || ordinal >= static_cast<int>(all.size())) {
        why = "--devices: no GPU " + std::to_string(ordinal) + " (this machine shows " +
              std::to_string(all.size()) + "; CUDA_VISIBLE_DEVICES applies)";
        return {};
      }
      chosen.push_back(all[static_cast<std::size_t>(ordinal)]);
    }
  }
  if (chosen.size() > limit) chosen.resize(std::max<std::size_t>(limit, 1));
  return chosen;
}

// The GPUs to start, or none and `why` (no driver, no GPU, none of those --devices names, no
// NVRTC, without which nothing can run on a GPU). `one_gpu`: BlurDevice's.
std::vector<GpuInfo> usable_gpus(const std::vector<int>& ordinals, std::size_t jobs, bool one_gpu,
                                 std::string& why) {
  const std::vector<GpuInfo> all = probe_gpus(why);
  std::vector<GpuInfo> gpus = all.empty() ? all : selected(all, ordinals, jobs, why);
  if (gpus.empty()) return gpus;
  if (one_gpu && ordinals.empty()) {
    // A GPU in an exclusive mode may be another process's, or none may open a context on it.
    const auto shared =
        std::find_if(gpus.begin(), gpus.end(), [](const GpuInfo& g) { return g.shared; });
    if (shared != gpus.end()) gpus = {*shared};
  }
  try {
    nvrtc_version();
  } catch (const Error& e) {
    why = e.what();
    return {};
  }
  return gpus;
}

}  // namespace

struct BlurDevice::Started {
  std::unique_ptr<GpuPool> pool;  // null: no usable GPU
  std::string why;                // why not
};

BlurDevice::BlurDevice(DeviceChoice choice, std::vector<int> ordinals, std::size_t jobs,
                       KernelLibrary& kernels, std::function<void(const std::string&)> announce,
                       bool release_contexts, bool jpeg_workers, bool one_gpu)
    : choice_(choice), announce_(std::move(announce)) {
  if (choice == DeviceChoice::kCpu) {
    found_.set_value("--device cpu");
    return;
  }
  starting_ = std::async(std::launch::async, [this, ordinals = std::move(ordinals), jobs, &kernels,
                                              release_contexts, jpeg_workers, one_gpu] {
    auto s = std::make_shared<Started>();
    std::vector<GpuInfo> gpus;
    try {
      gpus = usable_gpus(ordinals, jobs, one_gpu, s->why);
    } catch (...) {
      found_.set_exception(std::current_exception());
      throw;
    }
    found_.set_value(gpus.empty() ? s->why : std::string());
    if (gpus.empty()) return s;
    GpuPoolOptions options;
    options.release_contexts = release_contexts;
    options.codec = gpu_jpeg_codec();
    options.codec_workers = jpeg_workers;
    s->pool = std::make_unique<GpuPool>(gpus, kernels, options);
    if (!s->pool->wait_ready(s->why)) s->pool.reset();
    return s;
  });
}

BlurDevice::~BlurDevice() {
  if (starting_.valid()) starting_.wait();
}

GpuPool* BlurDevice::gpus(std::string& why) {
  if (choice_ == DeviceChoice::kCpu) {
    why = "--device cpu";
    return nullptr;
  }
  const std::shared_ptr<Started>& started = starting_.get();
  why = started->why;
  return started->pool.get();
}

GpuPool* BlurDevice::gpus_if_started() {
  if (choice_ == DeviceChoice::kCpu ||
      starting_.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
    return nullptr;
  }
  return starting_.get()->pool.get();
}

bool BlurDevice::found(std::string& why) {
  why = found_result_.get();
  return why.empty();
}

bool BlurDevice::used_cpu() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return used_cpu_;
}

void BlurDevice::blur_on_cpu(PreparedImage& image, FileResult& result) {
  const auto start = std::chrono::steady_clock::now();
  image.image.visit([&](auto& raster) { raster = gpublur::blur_on_cpu(raster, image.spec); });
  result.stages.emplace_back("cpu blur", ms_since(start));
  result.device = "cpu";
  const std::lock_guard<std::mutex> lock(mutex_);
  used_cpu_ = true;
}

bool BlurDevice::starting() const {
  return choice_ != DeviceChoice::kCpu &&
         starting_.wait_for(std::chrono::seconds(0)) != std::future_status::ready;
}

namespace {

// The CPU's work for a blur: samples times taps per sample (a matrix's every weight, however it
// is computed; the separable passes' both vectors).
double cpu_blur_work(const PreparedImage& image) {
  const FilterSpec& s = image.spec;
  const double taps = s.operation == Operation::kMatrix
                          ? static_cast<double>(s.matrix.width) * s.matrix.height
                          : static_cast<double>(s.x.size) + s.y.size;
  return static_cast<double>(image.image.width()) * image.image.height() * image.image.channels() *
         taps;
}

// The most work of one image blurred on the CPU while the GPUs start, for each thread the CPU's
// blur runs on (in bands, on every thread of the batch): a moment's (a 1080p RGB 7x7 Gaussian is
// about a third of one thread's). A larger blur could outlast the start it fills, and leave the
// image slower on the CPU than it would have been waiting for a GPU; a smaller limit left the
// CPU's threads idle while a batch of large images waited for the GPUs' contexts.
constexpr double kCpuBlurWhileStartingPerThread = double(std::uint64_t{1} << 28);
// The most work of all the images on the CPU at once while the GPUs start, in those moments a
// thread: about as long as the contexts take, so that images that each pass the limit above do
// not, together, hold the CPU long after the GPUs are ready.
constexpr double kCpuMomentsWhileStarting = 8;

double thread_moments(double moments) {
  return moments * kCpuBlurWhileStartingPerThread * tbb::this_task_arena::max_concurrency();
}

bool light_for_cpu(const PreparedImage& image) { return cpu_blur_work(image) <= thread_moments(1); }

}  // namespace

bool BlurDevice::may_blur_on_cpu(const PreparedImage& image) const {
  if (choice_ != DeviceChoice::kAuto) return choice_ == DeviceChoice::kCpu;
  if (starting()) return light_for_cpu(image);
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (gpu_failed_) return true;
  }
  return starting_.get()->pool == nullptr;
}

bool BlurDevice::blur_on_cpu_while_starting(PreparedImage& image, FileResult& result) {
  if (choice_ != DeviceChoice::kAuto || !light_for_cpu(image) || !starting()) {
    return false;
  }
  const double work = cpu_blur_work(image);
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (cpu_work_while_starting_ + work > thread_moments(kCpuMomentsWhileStarting)) return false;
    cpu_work_while_starting_ += work;
  }
  struct Admitted {  // gives the work back however the blur ends
    BlurDevice& device;
    double work;
    ~Admitted() {
      const std::lock_guard<std::mutex> lock(device.mutex_);
      device.cpu_work_while_starting_ -= work;
    }
  } const admitted{*this, work};
  blur_on_cpu(image, result);
  result.notes.push_back("blurred on the CPU while the GPUs started");
  return true;
}

HostPixels gpu_pixels(PreparedImage& image, const CodecWork* codec) {
  AnyImage& pixels = image.image;
  if (codec && codec->decode && !codec->encode && !pixels.data()) {
    pixels.visit([](auto& r) {
      const std::size_t count = r.row_samples() * static_cast<std::size_t>(r.height);
      reserve_large(r.pixels, count);  // a large one in huge pages: pinned faster, too
      r.pixels.resize(count);
    });
  }
  return HostPixels{pixels.data(), pixels.row_bytes(), pixels.width(), pixels.height()};
}

void BlurDevice::blur(PreparedImage& image, const std::string& key, FileResult& result,
                      CodecWork* codec) {
  std::string why;
  const auto start = std::chrono::steady_clock::now();
  GpuPool* pool = gpus(why);
  if (const double waited = ms_since(start); waited > 0.05)
    result.stages.emplace_back("init", waited);
  bool failed;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    failed = gpu_failed_;
  }
  if (pool && !failed) {
    try {
      const GpuBlurTimes t = pool->blur(gpu_pixels(image, codec), key, image.spec,
                                        image.image.sample_format(), image.spec.channels, codec);
      const bool decoded = codec && codec->decode, encoded = codec && codec->encode;
      result.device = "gpu";
      result.stacked = t.stacked;
      result.stages.emplace_back("pin", t.pin_ms);
      if (t.pin_refused) {
        result.notes.push_back(
            "its samples could not be pinned (cuMemHostRegister): copied to and from the GPU "
            "through the driver's own buffers, more slowly");
      }
      result.stages.emplace_back("gpu wait", t.wait_ms);
      // A stack's events: its images' copies and decodes together, its encodes and copies.
      result.stages.emplace_back(decoded ? "gpu decode" : "upload", t.upload_ms);
      result.stages.emplace_back("kernel", t.kernel_ms);
      result.stages.emplace_back(encoded ? "gpu encode" : "download", t.download_ms);
      return;
    } catch (const CodecDeclined&) {
      throw;
    } catch (const CudaError& e) {  // the GPU this image went to; others may go on
      if (choice_ != DeviceChoice::kAuto) throw;
      why = std::string("a GPU failed: ") + e.what();
    } catch (const CompileError&) {
      throw;
    } catch (const UsageError&) {
      throw;
    } catch (const Error& e) {  // no GPU left
      if (choice_ != DeviceChoice::kAuto) throw;
      why = e.what();
      const std::lock_guard<std::mutex> lock(mutex_);
      gpu_failed_ = true;
    }
  }
  if (choice_ == DeviceChoice::kGpu) {
    throw Error("no usable GPU: " + why + " (leave out --device gpu to blur on the CPU)");
  }
  if (choice_ == DeviceChoice::kAuto) {
    std::call_once(announce_once_, [&] { announce_(why + "; blurring on the CPU"); });
  }
  if (codec && codec->decode) throw CodecDeclined("the CPU blurs: " + why);
  blur_on_cpu(image, result);
}

}  // namespace gpublur
