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

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "batch/prepared_image.hpp"
#include "gpu/gpu_blur.hpp"
#include "gpu/kernel_library.hpp"
#include "nvjpeg/gpu_jpeg.hpp"

namespace gpublur {

/// What the GPU's JPEG codec (gpu_jpeg.hpp) does for one image, beside its blur.
struct GpuJpegWork {
  /// Decode this JPEG on the GPU instead of uploading the image's samples (which may then be
  /// empty: they are allocated where the result comes back to the host).
  const std::vector<std::uint8_t>* decode = nullptr;
  /// Encode the result as a JPEG on the GPU instead of bringing its samples back.
  std::optional<JpegEncodeSettings> encode;
  std::vector<std::uint8_t> encoded;  // out: the JPEG, once encoded
  std::string decoder;                // out: which decoded it ("hardware", "gpu hybrid")
};

/// What one image's trip through a GPU took.
struct GpuBlurTimes {
  double pin_ms = 0;      // cuMemHostRegister of its memory (host clock)
  double wait_ms = 0;     // from handing it over to getting it back (host clock)
  float upload_ms = 0;    // its stack's copies to the GPU and JPEG decodes (CUDA events)
  float kernel_ms = 0;    // its stack's kernel(s)
  float download_ms = 0;  // its stack's copies from the GPU and JPEG encodes
  int stacked = 1;        // images in its stack's launch
  int gpu = 0;            // which worker: an index into GpuPool::gpus()
};

/// How much each worker did.
struct GpuWorkerStats {
  GpuInfo gpu;
  long images = 0;
  long launches = 0;
  double busy_ms = 0;  // from each stack's first copy to its last (CUDA events)
  // The worker's own time, on its two threads. Its thread: waiting for images to stack (idle),
  // enqueueing stacks (launch: copies, nvJPEG's decode calls, the blur), and waiting for the
  // finisher to free a stream's buffers for the next (slot_wait). Its finisher: nvJPEG's encodes
  // (encode_calls: enqueued, done and fetched), waiting for the GPU to finish the stack
  // (gpu_wait), and handing the results back. Where the GPU's pace falls short, says whether the
  // GPU, the host work or the images' arrival is why.
  double idle_ms = 0, launch_ms = 0, slot_wait_ms = 0, gpu_wait_ms = 0, hand_back_ms = 0;
  double first_launch_ms = 0;  // of launch_ms: the first stack's (kernel and nvJPEG start-up)
  double decode_call_ms = 0;   // of launch_ms: in nvJPEG's decode calls
  double encode_call_ms = 0;   // the finisher's, in nvJPEG's encoder
  double jpeg_start_ms = 0;    // a JPEG worker's nvJPEG start-up, before its first stack
  bool takes_jpeg = false;     // a JPEG worker (GpuPool's `jpeg_workers`)
  std::string failure;         // why it stopped, if it did
};

class GpuPool {
 public:
  /// Starts a worker for each entry of `gpus`; each opens its GPU's context on its own thread
  /// (the slow part of GPU start-up runs beside the first decodes).
  /// `release_contexts` false leaves each context for the driver to tear down at the process's
  /// exit (run.hpp's ContextAtEnd::kLeaveToExit).
  /// `jpeg_workers`: a second worker for each GPU that takes the images with nvJPEG work (the
  /// first then blurs host images only, beside it rather than behind its JPEG stacks).
  GpuPool(const std::vector<GpuInfo>& gpus, KernelLibrary& kernels, bool release_contexts = true,
          bool jpeg_workers = false);
  /// Finishes what is queued and stops the workers.
  ~GpuPool();
  GpuPool(const GpuPool&) = delete;
  GpuPool& operator=(const GpuPool&) = delete;

  /// Blurs `image` (its samples, in place) with the kernel `key` names, on the first free GPU;
  /// waits for it. With `jpeg`, decodes and/or encodes it there too. Thread-safe. Throws what its
  /// kernel's compile throws, CudaError where the GPU fails, Error("no usable GPU: why") once no
  /// worker is left, and GpuJpegError where nvJPEG did not take the image (then `image` is as it
  /// was: the caller decodes and encodes it on the CPU).
  GpuBlurTimes blur(PreparedImage& image, const std::string& key, GpuJpegWork* jpeg = nullptr);

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
