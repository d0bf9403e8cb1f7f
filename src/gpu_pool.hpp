// gpu_pool.hpp — the GPUs a batch blurs on: one worker thread per listed GPU (an ordinal listed
// twice gets two workers, sharing its context), all taking images from one queue, so whichever GPU
// is free takes the next. A worker takes the queued images of one shape and kernel together and
// blurs them as one stack in one launch; its two streams let one stack's copies run beside the
// other's kernel. Exposes gpublur types only.
//
// Why a queue of our own beside oneTBB: a GPU's context, streams and buffers belong to one thread
// that keeps them busy, and stacking needs to see what else is waiting; the batch's CPU stages,
// on oneTBB, hand images over and wait for them (briefly: a 1080p image's copies and kernel take
// well under a millisecond, its codecs tens).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "gpu_blur.hpp"
#include "kernel_library.hpp"
#include "prepared_image.hpp"

namespace gpublur {

/// What one image's trip through a GPU took.
struct GpuBlurTimes {
  double pin_ms = 0;    // cuMemHostRegister of its memory (host clock)
  double wait_ms = 0;   // from handing it over to getting it back (host clock)
  float upload_ms = 0;  // its stack's copies to the GPU (CUDA events)
  float kernel_ms = 0;  // its stack's kernel(s)
  float download_ms = 0;
  int stacked = 1;  // images in its stack's launch
  int gpu = 0;      // which worker: an index into GpuPool::gpus()
};

/// How much each worker did.
struct GpuWorkerStats {
  GpuInfo gpu;
  long images = 0;
  long launches = 0;
  double busy_ms = 0;   // from each stack's first copy to its last (CUDA events)
  std::string failure;  // why it stopped, if it did
};

class GpuPool {
 public:
  /// Starts a worker for each entry of `gpus`; each opens its GPU's context on its own thread
  /// (the slow part of GPU start-up runs beside the first decodes).
  /// `release_contexts` false leaves each context for the driver to tear down at the process's
  /// exit (run.hpp's ContextAtEnd::kLeaveToExit).
  GpuPool(const std::vector<GpuInfo>& gpus, KernelLibrary& kernels, bool release_contexts = true);
  /// Finishes what is queued and stops the workers.
  ~GpuPool();
  GpuPool(const GpuPool&) = delete;
  GpuPool& operator=(const GpuPool&) = delete;

  /// Blurs `image` (its samples, in place) with the kernel `key` names, on the first free GPU;
  /// waits for it. Thread-safe. Throws what its kernel's compile throws, CudaError where the GPU
  /// fails, and Error("no usable GPU: why") once no worker is left.
  GpuBlurTimes blur(PreparedImage& image, const std::string& key);

  /// Waits until every worker has opened its context or failed to; true if one opened. `why`:
  /// the first failure.
  bool wait_ready(std::string& why);

  const std::vector<GpuInfo>& gpus() const;
  std::vector<GpuWorkerStats> stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpublur
