// gpu_pool.hpp — the GPUs a batch blurs on: workers (gpu_worker.hpp) taking images from one queue
// (stack_queue.hpp), so whichever GPU is free takes the next, stacking images of one shape and
// kernel into one launch. An ordinal listed twice gets two workers sharing its context. With a
// codec on the GPU (device_codec.hpp), each GPU gets a second worker for the images with codec
// work, so host images are blurred beside its stacks, not behind them. Exposes gpublur types only.
//
// Why a queue of our own beside oneTBB: a GPU's context, streams and buffers belong to one thread
// that keeps them busy, and stacking needs to see what else is waiting; the batch's CPU stages,
// on oneTBB, hand images over and wait for them.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "gpu/gpu_worker.hpp"

namespace gpublur {

struct GpuPoolOptions {
  /// False leaves each context for the driver to tear down at the process's exit (run.hpp's
  /// ContextAtEnd::kLeaveToExit).
  bool release_contexts = true;
  /// The codec on the GPU (empty: none, and codec work is declined).
  DeviceCodecFactory codec;
  /// A worker of its own on each GPU for codec work, which starts the codec at once (a batch
  /// that the codec may decode); otherwise every worker takes everything, starting the codec at
  /// its first codec work.
  bool codec_workers = false;
};

class GpuPool {
 public:
  /// Starts the workers; each opens its GPU's context on its own thread, every GPU at once (the
  /// slow part of start-up runs beside the first decodes).
  GpuPool(const std::vector<GpuInfo>& gpus, KernelLibrary& kernels,
          const GpuPoolOptions& options = {});
  /// Finishes what is queued and stops the workers.
  ~GpuPool();
  GpuPool(const GpuPool&) = delete;
  GpuPool& operator=(const GpuPool&) = delete;

  /// Blurs `pixels` in place with the kernel `key` names (compiled for `spec` over `format`
  /// samples of `channels` channels), on the first free GPU; waits for it. With `codec`, the GPU's
  /// codec decodes and/or encodes it there too. Thread-safe. Throws what its kernel's compile
  /// throws, CudaError where the GPU fails, Error("no usable GPU: why") once no worker is left,
  /// and CodecDeclined where the codec did not take the image (then `pixels` are as they were:
  /// the caller decodes and encodes it on the CPU).
  GpuBlurTimes blur(HostPixels pixels, const std::string& key, const BlurSpec& spec,
                    SampleFormat format, int channels, CodecWork* codec = nullptr);

  /// Waits until every worker has opened its context or failed to; true if one opened. `why`:
  /// the first failure.
  bool wait_ready(std::string& why);

  /// Whether a codec worker's codec has started, without waiting: until then a caller that may
  /// choose takes the CPU's codec. False for good where none could start.
  bool codec_ready() const;

  /// Whether a codec worker's codec is still starting: none has started yet and one may.
  bool codec_starting() const;

  const std::vector<GpuInfo>& gpus() const;
  std::vector<GpuWorkerStats> stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpublur
