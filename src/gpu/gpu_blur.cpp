// gpu_blur.cpp — device probing, upload, launch, download through the Driver API.
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

namespace gpublur {
namespace {

int attribute(CUdevice device, CUdevice_attribute which) {
  int value = 0;
  GB_CU_CHECK(cuda::api().cuDeviceGetAttribute(&value, which, device), "querying the GPU");
  return value;
}

CUdevice device_handle(int ordinal) {
  CUdevice device = 0;
  GB_CU_CHECK(cuda::api().cuDeviceGet(&device, ordinal), "opening GPU " + std::to_string(ordinal));
  return device;
}

// Packed host rows -> pitched device rows.
template <typename Sample>
CUDA_MEMCPY2D upload_copy(const Raster<Sample>& image, CUdeviceptr device, std::size_t pitch) {
  CUDA_MEMCPY2D copy{};
  copy.srcMemoryType = CU_MEMORYTYPE_HOST;
  copy.srcHost = image.pixels.data();
  copy.srcPitch = image.row_bytes();
  copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  copy.dstDevice = device;
  copy.dstPitch = pitch;
  copy.WidthInBytes = image.row_bytes();
  copy.Height = static_cast<std::size_t>(image.height);
  return copy;
}

// Pitched device rows -> packed host rows.
template <typename Sample>
CUDA_MEMCPY2D download_copy(CUdeviceptr device, std::size_t pitch, Raster<Sample>& image) {
  CUDA_MEMCPY2D copy{};
  copy.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  copy.srcDevice = device;
  copy.srcPitch = pitch;
  copy.dstMemoryType = CU_MEMORYTYPE_HOST;
  copy.dstHost = image.pixels.data();
  copy.dstPitch = image.row_bytes();
  copy.WidthInBytes = image.row_bytes();
  copy.Height = static_cast<std::size_t>(image.height);
  return copy;
}

}  // namespace

std::string driver_version_string(int version) {
  return "CUDA " + std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

namespace {

GpuInfo device_info(const cuda::DriverApi& driver, int ordinal) {
  GpuInfo info;
  info.ordinal = ordinal;
  const CUdevice device = device_handle(ordinal);
  char name[256] = {};
  GB_CU_CHECK(driver.cuDeviceGetName(name, sizeof name - 1, device), "querying the GPU's name");
  info.name = name;
  info.arch = Arch{attribute(device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
                   attribute(device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)};
  GB_CU_CHECK(driver.cuDriverGetVersion(&info.driver_version), "querying the driver version");
  GB_CU_CHECK(driver.cuDeviceTotalMem(&info.memory_bytes, device), "querying the GPU's memory");
  info.sm_count = attribute(device, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  info.shared = attribute(device, CU_DEVICE_ATTRIBUTE_COMPUTE_MODE) == CU_COMPUTEMODE_DEFAULT;
  return info;
}

}  // namespace

std::vector<GpuInfo> probe_gpus(std::string& why) {
  const cuda::DriverApi* driver = cuda::load_driver(why);
  if (!driver) return {};
  if (const CUresult status = driver->cuInit(0); status != CUDA_SUCCESS) {
    const char* name = nullptr;
    driver->cuGetErrorName(status, &name);
    why = std::string("cuInit failed: ") + (name ? name : "unknown error");
    if (status == CUDA_ERROR_NO_DEVICE) why = "no NVIDIA GPU found (cuInit: CUDA_ERROR_NO_DEVICE)";
    return {};
  }
  int count = 0;
  GB_CU_CHECK(driver->cuDeviceGetCount(&count), "counting GPUs");
  if (count < 1) why = "no NVIDIA GPU found";
  std::vector<GpuInfo> gpus;
  for (int ordinal = 0; ordinal < count; ++ordinal) gpus.push_back(device_info(*driver, ordinal));
  return gpus;
}

int device_of_pointer(std::uintptr_t pointer) {
  int ordinal = -1;
  GB_CU_CHECK(cuda::api().cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                                static_cast<CUdeviceptr>(pointer)),
              "finding the GPU of an array");
  return ordinal;
}

std::optional<GpuInfo> probe_gpu(std::string& why) {
  std::vector<GpuInfo> gpus = probe_gpus(why);
  if (gpus.empty()) return std::nullopt;
  return gpus.front();
}

struct GpuSession::Impl {
  cuda::Context context;
  explicit Impl(CUdevice device) : context(device) {}
};

namespace {
// What kind of GPU context this process has opened, for opened_shared_gpu_context.
enum ContextsOpened : int { kNoContext, kSharedContext, kExclusiveContext };
std::atomic<int> contexts_opened{kNoContext};
}  // namespace

bool opened_shared_gpu_context() { return contexts_opened.load() == kSharedContext; }

GpuSession::GpuSession(const GpuInfo& gpu)
    : info_(gpu), impl_(std::make_unique<Impl>(device_handle(gpu.ordinal))) {
  if (!gpu.shared) {
    contexts_opened.store(kExclusiveContext);
  } else {
    int none = kNoContext;
    contexts_opened.compare_exchange_strong(none, kSharedContext);
  }
}

GpuSession::~GpuSession() = default;

void GpuSession::make_current() const { impl_->context.make_current(); }

struct GpuSessionAccess {
  static cuda::Context& context(GpuSession& s) { return s.impl_->context; }
};

namespace {

template <typename Sample>
constexpr SampleFormat format_of() {
  if constexpr (std::is_floating_point_v<Sample>) return SampleFormat::kFloat;
  return sizeof(Sample) == 1 ? SampleFormat::k8 : SampleFormat::k16;
}

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
  if (first.channels != kernel_.channels || kernel_.format != format_of<Sample>()) {
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
  const LaunchDims dims =
      launch_dims(kernel_, first.width, first.height, session_.info().sm_count, stacked);
  const auto& driver = cuda::api();
  GpuSessionAccess::context(session_).make_current();
  const std::size_t pitch = device_pitch(first.row_bytes());
  const std::size_t image_bytes = checked_mul(pitch, static_cast<std::size_t>(first.height));
  const std::size_t bytes = checked_mul(image_bytes, count);
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
  cuda::DeviceBuffer source(bytes);
  cuda::DeviceBuffer result(bytes);
  std::optional<cuda::DeviceBuffer> scratch;  // kGeneral's intermediate, a planar blur's planes
  if (const std::size_t scratch_bytes =
          blur_scratch_bytes(kernel_, first.width, first.height, stacked)) {
    scratch.emplace(scratch_bytes);
  }
  cuda::Stream stream;
  cuda::Event start, uploaded, computed, stop;

  start.record(stream);
  for (std::size_t i = 0; i < count; ++i) {  // image i: rows i * height on, of the stack
    const CUDA_MEMCPY2D upload = upload_copy(images[i], source.get() + i * image_bytes, pitch);
    GB_CU_CHECK(driver.cuMemcpy2DAsync(&upload, stream.get()), "copying the image to the GPU");
  }
  uploaded.record(stream);
  const int device_pitch_arg = static_cast<int>(pitch);
  launch_blur(kernel_, impl_->functions, dims, {source.get(), device_pitch_arg},
              {result.get(), device_pitch_arg}, first.width, first.height, stacked,
              scratch ? scratch->get() : 0, stream.get());
  computed.record(stream);
  // The uploads were ordered before this on the stream, so the images' memory is free to take
  // the results.
  for (std::size_t i = 0; i < count; ++i) {
    const CUDA_MEMCPY2D download = download_copy(result.get() + i * image_bytes, pitch, images[i]);
    GB_CU_CHECK(driver.cuMemcpy2DAsync(&download, stream.get()), "copying the result from the GPU");
  }
  stop.record(stream);
  stream.synchronize("running the blur kernel");
  times.upload_ms = uploaded.elapsed_since(start);
  times.kernel_ms = computed.elapsed_since(uploaded);
  times.download_ms = stop.elapsed_since(computed);
  return times;
}

namespace {

std::size_t sample_bytes(SampleFormat format) {
  return format == SampleFormat::k8 ? 1 : format == SampleFormat::k16 ? 2 : 4;
}

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
