// gpu_pool.cpp — the workers, and the caller's side of a blur: its samples made ready for fast,
// asynchronous copies, queued, and waited for.
#include "gpu/gpu_pool.hpp"

#include <atomic>
#include <chrono>
#include <mutex>
#include <optional>

#include "gpu/cuda_driver.hpp"

namespace gpublur {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

}  // namespace

struct GpuPool::Impl {
  std::vector<GpuInfo> gpus;
  StackQueue queue;
  std::vector<std::unique_ptr<GpuWorker>> workers;
  std::once_flag ready_once;
  std::string ready_why;
  const GpuSession* pinning_session = nullptr;  // any open context: pinning needs one current
  std::atomic<int> codec_starting{0};           // codec workers whose codec has not started yet
  std::atomic<bool> codec_ready{false};

  void wait_ready() {
    std::call_once(ready_once, [&] {
      for (const auto& w : workers) {
        const std::string why = w->wait_ready();
        if (why.empty() && !pinning_session) pinning_session = w->session();
        if (!why.empty() && ready_why.empty()) ready_why = why;
      }
    });
  }
};

GpuPool::GpuPool(const std::vector<GpuInfo>& gpus, KernelLibrary& kernels,
                 const GpuPoolOptions& options)
    : impl_(std::make_unique<Impl>()) {
  impl_->gpus = gpus;
  // With codec workers, each GPU's first worker blurs host images only, and a second takes the
  // codec work (and anything else waiting).
  const bool codec_workers = options.codec_workers && options.codec;
  if (codec_workers) {
    impl_->gpus.insert(impl_->gpus.end(), gpus.begin(), gpus.end());
    impl_->codec_starting = static_cast<int>(gpus.size());
  }
  Impl* impl = impl_.get();
  const auto codec_started = [impl](bool started) {
    if (started) impl->codec_ready = true;
    --impl->codec_starting;
  };
  for (std::size_t i = 0; i < impl_->gpus.size(); ++i) {
    const bool codec_worker = codec_workers && i >= gpus.size();
    WorkerRole role{!codec_workers || codec_worker, codec_worker, options.codec};
    impl_->workers.push_back(std::make_unique<GpuWorker>(
        impl_->gpus[i], static_cast<int>(i), kernels, impl_->queue, options.release_contexts,
        std::move(role), codec_worker ? CodecStarted(codec_started) : CodecStarted()));
  }
}

GpuPool::~GpuPool() { impl_->queue.close(); }

bool GpuPool::wait_ready(std::string& why) {
  impl_->wait_ready();
  why = impl_->ready_why;
  return impl_->pinning_session != nullptr;
}

bool GpuPool::codec_ready() const { return impl_->codec_ready.load(); }

bool GpuPool::codec_starting() const {
  return !impl_->codec_ready.load() && impl_->codec_starting.load() > 0;
}

const std::vector<GpuInfo>& GpuPool::gpus() const { return impl_->gpus; }

std::vector<GpuWorkerStats> GpuPool::stats() const {
  std::vector<GpuWorkerStats> all;
  for (const auto& w : impl_->workers) all.push_back(w->stats());
  return all;
}

GpuBlurTimes GpuPool::blur(HostPixels pixels, const std::string& key, const BlurSpec& spec,
                           SampleFormat format, int channels, CodecWork* codec) {
  impl_->wait_ready();
  auto r = std::make_shared<StackRequest>();
  r->pixels = pixels;
  r->key = key;
  r->spec = &spec;
  r->format = format;
  r->channels = channels;
  r->codec = codec;
  std::future<GpuBlurTimes> done = r->done.get_future();
  const std::size_t bytes = pixels.row_bytes * static_cast<std::size_t>(pixels.height);
  // The image is pinned where it lies (cuMemHostRegister) for its trip, so its copies run
  // asynchronously at the link's speed; here, on the caller's thread, off the GPU's worker. Not
  // while a codec starts: pinning and the codec's start-up allocations wait for each other in the
  // driver. Pinned where it lies, not copied through reused pinned blocks: an 8K image's raster
  // (in huge pages, large_buffer.hpp) is pinned and unpinned in less time than one copy of it in
  // a busy batch, and the blocks' own allocation held up a batch's start (bench/RESULTS.md,
  // gpublur_pinning_bench).
  const auto pin_start = Clock::now();
  std::optional<cuda::PinnedHostRange> pinned;
  if (impl_->pinning_session && pixels.data && impl_->codec_starting.load() == 0) {
    impl_->pinning_session->make_current();
    pinned.emplace(pixels.data, bytes);
  }
  double pin_ms = ms_since(pin_start);
  r->queued = Clock::now();
  impl_->queue.push(r);
  GpuBlurTimes times = done.get();
  times.pin_refused = pinned && !pinned->pinned();
  if (pinned) {
    const auto unpin_start = Clock::now();
    pinned.reset();
    pin_ms += ms_since(unpin_start);
  }
  times.pin_ms = pin_ms;
  return times;
}

}  // namespace gpublur
