// cuda_driver.hpp — the CUDA Driver API loaded at run time (libcuda.so.1, entry points via
// cuGetProcAddress at this header's CUDA_VERSION), the checking macro, and one RAII owner per
// handle kind. One of the few files that include cuda.h (STYLE rule 12).
#pragma once

#include <cuda.h>

#include <cstddef>
#include <string>

#include "base/unique_handle.hpp"

namespace gpublur::cuda {

/// The driver entry points gpublur uses, listed once: X(name) for each. The DriverApi struct
/// declares them and load_driver resolves them from this one list.
#define GB_DRIVER_ENTRY_POINTS(X) \
  X(cuGetErrorName)               \
  X(cuGetErrorString)             \
  X(cuInit)                       \
  X(cuDriverGetVersion)           \
  X(cuDeviceGetCount)             \
  X(cuDeviceGet)                  \
  X(cuDeviceGetName)              \
  X(cuDeviceGetAttribute)         \
  X(cuDeviceTotalMem)             \
  X(cuDevicePrimaryCtxRetain)     \
  X(cuDevicePrimaryCtxRelease)    \
  X(cuCtxSetCurrent)              \
  X(cuCtxGetCurrent)              \
  X(cuModuleLoadData)             \
  X(cuModuleUnload)               \
  X(cuModuleGetFunction)          \
  X(cuFuncSetAttribute)           \
  X(cuMemAlloc)                   \
  X(cuMemFree)                    \
  X(cuMemAllocAsync)              \
  X(cuMemFreeAsync)               \
  X(cuMemHostRegister)            \
  X(cuMemHostUnregister)          \
  X(cuMemHostAlloc)               \
  X(cuMemFreeHost)                \
  X(cuMemcpyHtoDAsync)            \
  X(cuMemcpyDtoHAsync)            \
  X(cuMemcpyDtoDAsync)            \
  X(cuMemcpy2DAsync)              \
  X(cuStreamCreate)               \
  X(cuStreamDestroy)              \
  X(cuStreamSynchronize)          \
  X(cuEventCreate)                \
  X(cuEventDestroy)               \
  X(cuEventRecord)                \
  X(cuStreamWaitEvent)            \
  X(cuEventSynchronize)           \
  X(cuEventElapsedTime)           \
  X(cuLaunchKernel)               \
  X(cuPointerGetAttribute)

/// The entry points, each with the signature decltype gives the cuda.h declaration: that of the
/// version cuda.h maps it to (cuMemAlloc -> cuMemAlloc_v2, ...), which is the version
/// cuGetProcAddress returns when asked for CUDA_VERSION.
struct DriverApi {
#define GB_DRIVER_DECLARE(name) decltype(&::name) name;
  GB_DRIVER_ENTRY_POINTS(GB_DRIVER_DECLARE)
#undef GB_DRIVER_DECLARE
};

/// Loads the driver on first call (thread-safe) and returns it, or nullptr with `why` saying
/// what was missing. Does not call cuInit.
const DriverApi* load_driver(std::string& why);

/// The loaded driver; throws InternalError if load_driver has not succeeded.
const DriverApi& api();

/// Throws CudaError "<subject>: <call> failed: CUDA_ERROR_X (<description>)".
[[noreturn]] void throw_cuda_error(CUresult status, const char* call, const std::string& subject);

}  // namespace gpublur::cuda

/// Checks one driver call; `subject` (what gpublur was doing) is evaluated only on failure.
#define GB_CU_CHECK(call, subject)                                        \
  do {                                                                    \
    const CUresult gb_cu_status_ = (call);                                \
    if (gb_cu_status_ != CUDA_SUCCESS) {                                  \
      ::gpublur::cuda::throw_cuda_error(gb_cu_status_, #call, (subject)); \
    }                                                                     \
  } while (0)

namespace gpublur::cuda {

struct PrimaryContextTraits {
  using Handle = CUdevice;  // the primary context is released by device
  static Handle null() noexcept { return -1; }
  static void destroy(Handle device);
};
struct ModuleTraits {
  using Handle = CUmodule;
  static Handle null() noexcept { return nullptr; }
  static void destroy(Handle module);
};
struct DevicePtrTraits {
  using Handle = CUdeviceptr;
  static Handle null() noexcept { return 0; }
  static void destroy(Handle ptr);
};
struct HostRegistrationTraits {
  using Handle = void*;
  static Handle null() noexcept { return nullptr; }
  static void destroy(Handle host);
};
struct HostAllocationTraits {
  using Handle = void*;
  static Handle null() noexcept { return nullptr; }
  static void destroy(Handle host);
};
struct StreamTraits {
  using Handle = CUstream;
  static Handle null() noexcept { return nullptr; }
  static void destroy(Handle stream);
};
struct EventTraits {
  using Handle = CUevent;
  static Handle null() noexcept { return nullptr; }
  static void destroy(Handle event);
};

/// A retained primary context, made current on the constructing thread (make_current() makes
/// it current on another). Declare it before every
/// Module, DeviceBuffer, Stream and Event that lives in it: members and locals are destroyed
/// in reverse order, so those are released while the context still exists.
class Context {
 public:
  explicit Context(CUdevice device);
  CUcontext get() const noexcept { return context_; }
  void make_current() const;

 private:
  UniqueHandle<PrimaryContextTraits> retained_;
  CUcontext context_ = nullptr;
};

/// A loaded module (CUBIN, or PTX the driver JIT-compiles).
class Module {
 public:
  /// `image` is a CUBIN or NUL-terminated PTX; `what` names it in errors.
  Module(const void* image, const std::string& what);
  /// The kernel `name`, allowed `dynamic_shared_bytes` of dynamic shared memory per launch
  /// (past 48 KiB a kernel must opt in).
  CUfunction function(const char* name, unsigned dynamic_shared_bytes = 0) const;
  CUmodule get() const noexcept { return module_.get(); }

 private:
  UniqueHandle<ModuleTraits> module_;
};

/// Device memory of a fixed size.
class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t bytes);
  CUdeviceptr get() const noexcept { return ptr_.get(); }
  std::size_t size() const noexcept { return bytes_; }

 private:
  UniqueHandle<DevicePtrTraits> ptr_;
  std::size_t bytes_ = 0;
};

/// Host memory page-locked for as long as this lives (cuMemHostRegister), so the copy engines
/// move it by DMA, asynchronously and at the link's full speed. Pinning costs time in proportion
/// to the bytes, and saves more on every copy of the same memory. The driver may refuse
/// (locked-memory limits, some platforms); then pinned() is false and copies of the memory still
/// work, staged through the driver's own buffers.
class PinnedHostRange {
 public:
  PinnedHostRange(void* host, std::size_t bytes);
  bool pinned() const noexcept { return static_cast<bool>(registered_); }

 private:
  UniqueHandle<HostRegistrationTraits> registered_;
};

/// Host memory allocated page-locked (cuMemHostAlloc), portable to every context. The batch pins
/// each image where it lies instead (PinnedHostRange), which costs less than copying it through
/// such a buffer; gpublur_pinning_bench measures the two. Needs a context current to allocate.
class PinnedHostBuffer {
 public:
  /// Throws CudaError where the driver cannot allocate it.
  explicit PinnedHostBuffer(std::size_t bytes);
  void* get() const noexcept { return memory_.get(); }
  std::size_t size() const noexcept { return bytes_; }

 private:
  UniqueHandle<HostAllocationTraits> memory_;
  std::size_t bytes_ = 0;
};

class Stream {
 public:
  Stream();
  CUstream get() const noexcept { return stream_.get(); }
  void synchronize(const std::string& subject) const;

 private:
  UniqueHandle<StreamTraits> stream_;
};

class Event {
 public:
  Event();
  CUevent get() const noexcept { return event_.get(); }
  void record(const Stream& stream) const;
  /// Makes the work `stream` is given from now on wait for what was recorded before this event.
  void wait_on(const Stream& stream) const;
  /// Waits until the work recorded before it is done; throws CudaError for that work's failure.
  void synchronize(const std::string& subject) const;
  /// Milliseconds from `start` to this event; both must have completed or this waits.
  float elapsed_since(const Event& start) const;

 private:
  UniqueHandle<EventTraits> event_;
};

}  // namespace gpublur::cuda
