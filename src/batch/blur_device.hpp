// blur_device.hpp — where a prepared image is blurred: on the GPUs (gpu_pool.hpp) or the CPU, as
// --device asks. The GPUs start on their own thread (driver, contexts), beside the first decodes.
// With `auto`, the CPU takes over, said once on stderr, where there is no usable GPU or NVRTC, or
// where the GPUs fail during a run. Both give the same bytes.
#pragma once

#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "batch/device_choice.hpp"
#include "batch/file_result.hpp"
#include "batch/prepared_image.hpp"
#include "gpu/gpu_pool.hpp"
#include "gpu/kernel_library.hpp"

namespace gpublur {

/// The prepared image's samples, as the GPUs take them. An image the GPU's codec decodes but does
/// not encode gets its host memory here, for the result to come back to.
HostPixels gpu_pixels(PreparedImage& image, const CodecWork* codec);

class BlurDevice {
 public:
  /// `ordinals`: the GPUs to use (an ordinal twice: two workers on it); empty: every GPU. At most
  /// `jobs` workers start (a single image takes one GPU). `announce` says, once, why the CPU blurs.
  /// `jpeg_workers`: nvJPEG on a worker of its own on each GPU, started at once (GpuPool's
  /// codec workers: a batch that nvJPEG may decode). `one_gpu`: where `ordinals` is empty, only
  /// the first GPU in the default compute mode (one that other processes may share; where there
  /// is none, every GPU, as without it).
  BlurDevice(DeviceChoice choice, std::vector<int> ordinals, std::size_t jobs,
             KernelLibrary& kernels, std::function<void(const std::string&)> announce,
             bool release_contexts = true, bool jpeg_workers = false, bool one_gpu = false);
  ~BlurDevice();
  BlurDevice(const BlurDevice&) = delete;
  BlurDevice& operator=(const BlurDevice&) = delete;

  /// Blurs `image` in place; records the device, its stage times and the GPU stack in `result`.
  /// With `codec`, the GPU's codec decodes and/or encodes it too (gpu_pool.hpp). Thread-safe.
  /// Throws the blur's errors (a kernel that cannot be compiled, --device gpu without one), and
  /// CodecDeclined where the file it was to decode must be decoded on the CPU first (the GPU's
  /// codec did not take it, or the CPU blurs).
  void blur(PreparedImage& image, const std::string& key, FileResult& result,
            CodecWork* codec = nullptr);

  /// With `auto`, while the GPUs are still starting, an image whose blur is light work for the
  /// CPU's threads (a 1080p photo's Gaussian on any number; an 8K image's 31x31 on 32, not on 16),
  /// while the images blurred so meanwhile are a few moments' work of them all: blurs it on the
  /// CPU (the same bytes) and returns true. Otherwise false, at once. For a batch, whose CPU
  /// threads would stand idle meanwhile once its images in flight all wait for the GPUs.
  bool blur_on_cpu_while_starting(PreparedImage& image, FileResult& result);

  /// Waits for the GPUs' start-up; the pool when one is usable (else nullptr, `why` says why).
  GpuPool* gpus(std::string& why);

  /// The pool if the GPUs' start-up is over and one is usable; else nullptr, without waiting.
  GpuPool* gpus_if_started();

  /// Whether the GPUs' start-up (the driver, their contexts) is still under way.
  bool starting() const;

  /// Whether `image`'s blur may run on the CPU, as far as is known now: --device cpu; with `auto`,
  /// GPUs that did not start or have failed, or (while they start) a blur light enough for
  /// blur_on_cpu_while_starting. A CPU blur makes its result beside the image, where a GPU's is in
  /// place: what the batch holds room for.
  bool may_blur_on_cpu(const PreparedImage& image) const;

  /// Waits only until the GPUs are found (the driver, the GPUs --devices names, NVRTC), not for
  /// their contexts: whether there are GPUs to start, as far as can be known before any work
  /// (else false, and `why` says why). Throws what finding them threw.
  bool found(std::string& why);

  /// Whether some image was blurred on the CPU / on a GPU.
  bool used_cpu() const;

 private:
  struct Started;
  void blur_on_cpu(PreparedImage& image, FileResult& result);
  const DeviceChoice choice_;
  const std::function<void(const std::string&)> announce_;
  std::promise<std::string> found_;  // empty: GPUs found; else why none
  std::shared_future<std::string> found_result_ = found_.get_future().share();
  std::shared_future<std::shared_ptr<Started>> starting_;  // any thread may look
  std::once_flag announce_once_;
  mutable std::mutex mutex_;  // guards the flags below
  bool gpu_failed_ = false;   // the GPUs failed during the run: the CPU takes the rest (auto)
  double cpu_work_while_starting_ = 0;  // blur_on_cpu_while_starting's work under way
  bool used_cpu_ = false;
};

}  // namespace gpublur
