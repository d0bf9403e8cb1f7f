// gpu_blur.hpp — a compiled blur loaded into a GPU's context and run on images there.
// Exposes gpublur types only; the driver lives behind cuda_driver.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "codegen/codegen.hpp"
#include "gpu/gpu_session.hpp"
#include "image/image.hpp"
#include "jit/arch.hpp"
#include "jit/nvrtc.hpp"

namespace gpublur {

/// What one blur on the GPU took.
struct GpuTimes {
  double pin_ms = 0;      // cuMemHostRegister of the image(s) (host clock)
  bool pinned = false;    // false: the driver refused to pin (one of them); its copies were staged
  float upload_ms = 0;    // CUDA events
  float kernel_ms = 0;    // CUDA events, the kernel (or kGeneral's two) alone
  float download_ms = 0;  // CUDA events
};

/// Images that are already on a GPU, in memory the caller owns (a CuPy array, a PyTorch
/// tensor): `images` images of width x height pixels of the kernel's channels and samples, rows
/// `pitch` bytes apart, image i `image_pitch` bytes after image i - 1. Addresses as integers, so
/// this header needs no CUDA types.
struct DeviceStack {
  std::uintptr_t pointer = 0;
  std::size_t pitch = 0;
  std::size_t image_pitch = 0;
};

/// A compiled blur loaded into a session's context. Loading is where the driver accepts or
/// rejects the binary (a stale cached kernel is rejected here, before any image is touched).
class GpuKernel {
 public:
  /// Loads `compiled` (built from `kernel`). Throws CudaError naming the failing call.
  GpuKernel(GpuSession& session, const GeneratedKernel& kernel, const CompiledKernel& compiled);
  ~GpuKernel();
  GpuKernel(const GpuKernel&) = delete;
  GpuKernel& operator=(const GpuKernel&) = delete;
  double load_ms() const { return load_ms_; }  // cuModuleLoadData + cuModuleGetFunction

  /// Blurs `image` in place: pins its memory, uploads it asynchronously on a stream, runs the
  /// kernel and downloads the result into the same memory. Throws CudaError; after a throw the
  /// image may be partly overwritten. Sample: std::uint8_t, std::uint16_t or float, matching
  /// the kernel's SampleFormat (else InternalError).
  template <typename Sample>
  GpuTimes blur_in_place(Raster<Sample>& image) const;

  /// Blurs `images`, all of one size, in place with one launch: each is pinned and uploaded into
  /// its place in a stack on the GPU, the stack blurred at once (every image on its own, its
  /// borders at its own edges: the bytes of blurring each alone), and each result downloaded into
  /// its own memory. `kernel_ms` is the stack's. Throws as above, and InternalError where the
  /// images' shapes differ or the stack does not fit one launch (launch_dims).
  template <typename Sample>
  GpuTimes blur_in_place(std::vector<Raster<Sample>>& images) const;

  /// Enqueues the blur of `in` into `out` (both on the kernel's GPU) on `stream` (a CUstream as an
  /// integer; 0: the legacy default stream) and returns without waiting: the result is there for
  /// whatever the caller orders after it on that stream. Rows the kernels cannot address directly
  /// (not 16-byte aligned, a stack whose images are not one after another) and an `out` that
  /// overlaps `in` go through stream-ordered scratch copies. The caller's current context is left
  /// as it was. Throws CudaError.
  void blur_on_stream(const DeviceStack& in, const DeviceStack& out, int width, int height,
                      int images, std::uintptr_t stream) const;

 private:
  template <typename Sample>
  GpuTimes blur_stack(Raster<Sample>* images, std::size_t count) const;

  struct Impl;
  GpuSession& session_;
  GeneratedKernel kernel_;
  std::unique_ptr<Impl> impl_;
  double load_ms_ = 0;
};

template <typename Sample>
struct GpuRun {
  Raster<Sample> output;
  double load_ms = 0;
  GpuTimes times;
};

/// Loads `compiled`, blurs a copy of `in` and returns it. Throws CudaError.
template <typename Sample>
GpuRun<Sample> blur_on_gpu(GpuSession& session, const Raster<Sample>& in,
                           const GeneratedKernel& kernel, const CompiledKernel& compiled);

/// The same, with a session opened for this call only.
template <typename Sample>
GpuRun<Sample> blur_on_gpu(const Raster<Sample>& in, const GeneratedKernel& kernel,
                           const CompiledKernel& compiled, const GpuInfo& gpu);

}  // namespace gpublur
