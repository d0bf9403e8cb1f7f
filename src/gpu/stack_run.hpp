// stack_run.hpp — the one way a stack of host images is blurred on a GPU, for the pool's workers
// and for GpuKernel alike: device buffers sized for the stack (kept and grown by their owner),
// each image copied into its place, one launch for the stack, each result copied back. Every
// call enqueues on a stream and returns without waiting.
#pragma once

#include <cstddef>
#include <optional>

#include "codegen/codegen.hpp"
#include "gpu/blur_launch.hpp"
#include "gpu/cuda_driver.hpp"

namespace gpublur {

/// One stream's device memory for stacks: the input places, the output places and the kernel's
/// scratch. Grown when a stack needs more, never shrunk (allocating synchronizes the GPU). Used
/// by one thread at a time.
class StackBuffers {
 public:
  /// Makes room for stacks of width x height images with rows of `row_bytes` bytes: `inputs`
  /// input places, `outputs` output places, and `kernel`'s scratch for a launch of `launched`.
  void reserve(const GeneratedKernel& kernel, int width, int height, std::size_t row_bytes,
               std::size_t inputs, std::size_t outputs, int launched);

  std::size_t pitch() const { return pitch_; }              // bytes between rows
  std::size_t image_bytes() const { return image_bytes_; }  // bytes between images
  CUdeviceptr input(std::size_t i) const { return in_->get() + i * image_bytes_; }
  CUdeviceptr output(std::size_t i) const { return out_->get() + i * image_bytes_; }
  CUdeviceptr scratch() const { return scratch_ ? scratch_->get() : 0; }

 private:
  // Owners, all in the context current where reserve() ran; the context outlives them.
  std::optional<cuda::DeviceBuffer> in_, out_, scratch_;
  std::size_t pitch_ = 0, image_bytes_ = 0;
};

/// Enqueues the copy of `rows` packed host rows of `row_bytes` into place `device` (rows `pitch`
/// apart). From pinned memory the copy runs asynchronously; from pageable memory the driver
/// stages it, and the call returns once the host memory may be reused.
void enqueue_upload(const void* host, std::size_t row_bytes, int rows, CUdeviceptr device,
                    std::size_t pitch, CUstream stream);

/// The same back: place `device` into packed host rows.
void enqueue_download(CUdeviceptr device, std::size_t pitch, void* host, std::size_t row_bytes,
                      int rows, CUstream stream);

/// Enqueues the blur of the first `images` input places of `buffers` into its output places,
/// every image on its own (its borders at its own edges), with one launch of `kernel`.
void enqueue_stack_blur(const GeneratedKernel& kernel, const BlurFunctions& functions,
                        const StackBuffers& buffers, int width, int height, int images,
                        int sm_count, CUstream stream);

}  // namespace gpublur
