// gpu_blur.cpp — a loaded blur run on host images (through stack_run.hpp) and on device arrays.
#include "gpu/gpu_blur.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <optional>
#include <type_traits>
#include <vector>

#include "base/errors.hpp"
#include "gpu/blur_launch.hpp"
#include "gpu/cuda_driver.hpp"
#include "gpu/session_access.hpp"
#include "gpu/stack_run.hpp"

namespace gpublur {
namespace {

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

}  // namespace

struct GpuKernel::Impl {
  cuda::Module module;
  BlurFunctions functions;

  Impl(const GeneratedKernel& kernel, const CompiledKernel& compiled)
      : module(compiled.module_image(), "the kernel (" +
                                            std::string(target_name(compiled.plan.target)) +
                                            " for " + compiled.plan.arch.sm() + ")"),
        functions(blur_functions(module, kernel)) {}
};

GpuKernel::GpuKernel(GpuSession& session, const GeneratedKernel& kernel,
                     const CompiledKernel& compiled)
    : session_(session), kernel_(kernel) {
  GpuSessionAccess::context(session).make_current();  // it may have been opened elsewhere
  const auto start = std::chrono::steady_clock::now();
  impl_ = std::make_unique<Impl>(kernel, compiled);
  load_ms_ = ms_since(start);
}

GpuKernel::~GpuKernel() = default;

template <typename Sample>
GpuTimes GpuKernel::blur_in_place(Raster<Sample>& image) const {
  return blur_stack(&image, 1);
}

template <typename Sample>
GpuTimes GpuKernel::blur_in_place(std::vector<Raster<Sample>>& images) const {
  return images.empty() ? GpuTimes{} : blur_stack(images.data(), images.size());
}

template <typename Sample>
GpuTimes GpuKernel::blur_stack(Raster<Sample>* images, std::size_t count) const {
  const Raster<Sample>& first = images[0];
  if (first.channels != kernel_.channels || kernel_.format != sample_format_of<Sample>()) {
    throw InternalError("kernel " + kernel_.name + " does not fit an image of " +
                        std::to_string(first.channels) + " channels of " +
                        std::to_string(sizeof(Sample) * 8) + "-bit samples");
  }
  for (std::size_t i = 1; i < count; ++i) {
    if (images[i].width != first.width || images[i].height != first.height ||
        images[i].channels != first.channels) {
      throw InternalError("a stack of images of different shapes");
    }
  }
  // Before any allocation: a stack too deep for one launch throws here (a count past INT_MAX
  // stays past launch_dims' limit).
  const int stacked = static_cast<int>(std::min<std::size_t>(count, INT_MAX));
  launch_dims(kernel_, first.width, first.height, session_.info().sm_count, stacked);
  GpuSessionAccess::context(session_).make_current();
  GpuTimes times;
  const auto pin_start = std::chrono::steady_clock::now();
  // Owners in dependency order (the session's context outlives them all): the pinned ranges,
  // buffers, stream, events; destroyed in reverse, so the ranges are unpinned last.
  std::vector<cuda::PinnedHostRange> pinned;
  pinned.reserve(count);
  times.pinned = true;
  for (std::size_t i = 0; i < count; ++i) {
    pinned.emplace_back(images[i].pixels.data(), images[i].byte_count());
    times.pinned = times.pinned && pinned.back().pinned();
  }
  times.pin_ms = ms_since(pin_start);
  StackBuffers buffers;
  buffers.reserve(kernel_, first.width, first.height, first.row_bytes(), count, count, stacked);
  cuda::Stream stream;
  cuda::Event start, uploaded, computed, stop;

  start.record(stream);
  for (std::size_t i = 0; i < count; ++i) {
    enqueue_upload(images[i].pixels.data(), first.row_bytes(), first.height, buffers.input(i),
                   buffers.pitch(), stream.get());
  }
  uploaded.record(stream);
  enqueue_stack_blur(kernel_, impl_->functions, buffers, first.width, first.height, stacked,
                     session_.info().sm_count, stream.get());
  computed.record(stream);
  // The uploads were ordered before this on the stream, so the images' memory is free to take
  // the results.
  for (std::size_t i = 0; i < count; ++i) {
    enqueue_download(buffers.output(i), buffers.pitch(), images[i].pixels.data(),
                     first.row_bytes(), first.height, stream.get());
  }
  stop.record(stream);
  stream.synchronize("running the blur kernel");
  times.upload_ms = uploaded.elapsed_since(start);
  times.kernel_ms = computed.elapsed_since(uploaded);
  times.download_ms = stop.elapsed_since(computed);
  return times;
}

namespace {

// Whether the kernels can read or write `stack` where it is: 16-byte accesses need every row to
// start on a 16-byte boundary, and rows whose bytes are not a multiple of 16 would be read or
// written past their end; a stack is one image after another.
bool addressable(const DeviceStack& stack, std::size_t row_bytes, int height) {
  return stack.pointer % 16 == 0 && stack.pitch % 16 == 0 && row_bytes % 16 == 0 &&
         stack.image_pitch == stack.pitch * static_cast<std::size_t>(height);
}

bool overlap(const DeviceStack& a, const DeviceStack& b, std::size_t bytes_a, std::size_t bytes_b) {
  return a.pointer < b.pointer + bytes_b && b.pointer < a.pointer + bytes_a;
}

// The calling thread's current context, put back when this goes (a framework's context may be
// current; ours is the device's primary context, which CuPy and PyTorch share).
class CurrentContextRestorer {
 public:
  CurrentContextRestorer() {
    GB_CU_CHECK(cuda::api().cuCtxGetCurrent(&saved_), "querying the context");
  }
  ~CurrentContextRestorer() { cuda::api().cuCtxSetCurrent(saved_); }
  CurrentContextRestorer(const CurrentContextRestorer&) = delete;
  CurrentContextRestorer& operator=(const CurrentContextRestorer&) = delete;

 private:
  CUcontext saved_ = nullptr;
};

// Device memory allocated and freed in stream order (cuMemAllocAsync): a later call on another
// stream cannot reuse it before this call's work is done.
class StreamBuffer {
 public:
  StreamBuffer(std::size_t bytes, CUstream stream) : stream_(stream) {
    if (bytes)
      GB_CU_CHECK(cuda::api().cuMemAllocAsync(&pointer_, bytes, stream), "allocating GPU memory");
  }
  ~StreamBuffer() {
    if (pointer_) cuda::api().cuMemFreeAsync(pointer_, stream_);
  }
  StreamBuffer(const StreamBuffer&) = delete;
  StreamBuffer& operator=(const StreamBuffer&) = delete;
  CUdeviceptr get() const { return pointer_; }

 private:
  CUdeviceptr pointer_ = 0;
  CUstream stream_;
};

// Copies `rows` rows of `row_bytes` between device stacks of other pitches, on `stream`.
void copy_rows(CUdeviceptr from, std::size_t from_pitch, CUdeviceptr to, std::size_t to_pitch,
               std::size_t row_bytes, std::size_t rows, CUstream stream) {
  CUDA_MEMCPY2D copy{};
  copy.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  copy.srcDevice = from;
  copy.srcPitch = from_pitch;
  copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  copy.dstDevice = to;
  copy.dstPitch = to_pitch;
  copy.WidthInBytes = row_bytes;
  copy.Height = rows;
  GB_CU_CHECK(cuda::api().cuMemcpy2DAsync(&copy, stream), "copying rows on the GPU");
}

// The most images of one launch, from the count down (launch_dims refuses a stack past the
// grid's layers).
int images_per_launch(const GeneratedKernel& kernel, int width, int height, int sm_count,
                      int images) {
  for (int n = images;; n = (n + 1) / 2) {
    try {
      launch_dims(kernel, width, height, sm_count, n);
      return n;
    } catch (const InternalError&) {
      if (n == 1) throw;
    }
  }
}

}  // namespace

void GpuKernel::blur_on_stream(const DeviceStack& in, const DeviceStack& out, int width, int height,
                               int images, std::uintptr_t stream_handle) const {
  const GeneratedKernel& kernel = kernel_;
  if (width < 1 || height < 1 || images < 1) return;
  const auto stream = reinterpret_cast<CUstream>(stream_handle);
  const auto rows = static_cast<std::size_t>(height);
  const std::size_t row_bytes =
      checked_mul(static_cast<std::size_t>(width) * static_cast<std::size_t>(kernel.channels),
                  sample_bytes(kernel.format));
  const auto count = static_cast<std::size_t>(images);
  const std::size_t in_bytes =
      checked_mul(in.image_pitch, count - 1) + in.pitch * (rows - 1) + row_bytes;
  const std::size_t out_bytes =
      checked_mul(out.image_pitch, count - 1) + out.pitch * (rows - 1) + row_bytes;
  const CurrentContextRestorer restore;
  GpuSessionAccess::context(session_).make_current();
  const int per_launch = images_per_launch(kernel, width, height, session_.info().sm_count, images);
  const std::size_t pitch = device_pitch(row_bytes);
  const std::size_t chunk_bytes = checked_mul(pitch * rows, static_cast<std::size_t>(per_launch));
  const bool direct_in =
      addressable(in, row_bytes, height) && !overlap(in, out, in_bytes, out_bytes);
  const bool direct_out = addressable(out, row_bytes, height);
  const StreamBuffer staged_in(direct_in ? 0 : chunk_bytes, stream);
  const StreamBuffer staged_out(direct_out ? 0 : chunk_bytes, stream);
  const StreamBuffer scratch(blur_scratch_bytes(kernel, width, height, per_launch), stream);
  for (int first = 0; first < images; first += per_launch) {
    const int n = std::min(per_launch, images - first);
    const auto index = static_cast<std::size_t>(first);
    DeviceImage source{in.pointer + index * in.image_pitch, static_cast<int>(in.pitch)};
    DeviceImage result{out.pointer + index * out.image_pitch, static_cast<int>(out.pitch)};
    if (!direct_in) {
      for (int i = 0; i < n; ++i) {
        const auto k = static_cast<std::size_t>(i);
        copy_rows(source.pointer + k * in.image_pitch, in.pitch, staged_in.get() + k * pitch * rows,
                  pitch, row_bytes, rows, stream);
      }
      source = {staged_in.get(), static_cast<int>(pitch)};
    }
    if (!direct_out) result = {staged_out.get(), static_cast<int>(pitch)};
    const LaunchDims dims = launch_dims(kernel, width, height, session_.info().sm_count, n);
    launch_blur(kernel, impl_->functions, dims, source, result, width, height, n, scratch.get(),
                stream);
    if (!direct_out) {
      for (int i = 0; i < n; ++i) {
        const auto k = static_cast<std::size_t>(i);
        copy_rows(staged_out.get() + k * pitch * rows, pitch,
                  out.pointer + (index + k) * out.image_pitch, out.pitch, row_bytes, rows, stream);
      }
    }
  }
}

template <typename Sample>
GpuRun<Sample> blur_on_gpu(GpuSession& session, const Raster<Sample>& in,
                           const GeneratedKernel& kernel, const CompiledKernel& compiled) {
  const GpuKernel loaded(session, kernel, compiled);
  GpuRun<Sample> run;
  run.output = in;
  run.load_ms = loaded.load_ms();
  run.times = loaded.blur_in_place(run.output);
  return run;
}

template <typename Sample>
GpuRun<Sample> blur_on_gpu(const Raster<Sample>& in, const GeneratedKernel& kernel,
                           const CompiledKernel& compiled, const GpuInfo& gpu) {
  GpuSession session(gpu);
  return blur_on_gpu(session, in, kernel, compiled);
}

#define GPUBLUR_INSTANTIATE(Sample)                                                               \
  template GpuTimes GpuKernel::blur_in_place(Raster<Sample>&) const;                              \
  template GpuTimes GpuKernel::blur_in_place(std::vector<Raster<Sample>>&) const;                 \
  template GpuRun<Sample> blur_on_gpu(GpuSession&, const Raster<Sample>&, const GeneratedKernel&, \
                                      const CompiledKernel&);                                     \
  template GpuRun<Sample> blur_on_gpu(const Raster<Sample>&, const GeneratedKernel&,              \
                                      const CompiledKernel&, const GpuInfo&);
GPUBLUR_INSTANTIATE(std::uint8_t)
GPUBLUR_INSTANTIATE(std::uint16_t)
GPUBLUR_INSTANTIATE(float)
#undef GPUBLUR_INSTANTIATE

}  // namespace gpublur
