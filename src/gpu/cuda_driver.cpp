// cuda_driver.cpp — driver loading, error messages and the RAII owners' create/destroy.
#include "gpu/cuda_driver.hpp"

#include <cstdlib>
#include <mutex>
#include <optional>

#include "base/dynamic_library.hpp"
#include "base/errors.hpp"

namespace gpublur::cuda {
namespace {

using GetProcAddress = decltype(&::cuGetProcAddress);

struct LoadResult {
  std::optional<DriverApi> api;
  std::string why;
};

template <typename Fn>
bool resolve(GetProcAddress get, Fn& fn, const char* name, std::string& why) {
  void* pointer = nullptr;
  CUdriverProcAddressQueryResult found{};
  const CUresult status = get(name, &pointer, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, &found);
  if (status != CUDA_SUCCESS || found != CU_GET_PROC_ADDRESS_SUCCESS || !pointer) {
    why = std::string("the driver has no ") + name + " for CUDA " +
          std::to_string(CUDA_VERSION / 1000) + "." + std::to_string(CUDA_VERSION % 1000 / 10) +
          " (driver too old?)";
    return false;
  }
  fn = reinterpret_cast<Fn>(pointer);
  return true;
}

LoadResult load() {
  LoadResult result;
  // $GPUBLUR_LIBCUDA replaces the default, so tests can also simulate a machine without one.
  const char* path = std::getenv("GPUBLUR_LIBCUDA");
  const std::vector<std::string> names{path ? path : "libcuda.so.1"};
  void* lib = open_first_library(names, result.why);
  if (!lib) {
    result.why = "no NVIDIA driver (" + result.why + ")";
    return result;
  }
  // cuda.h maps cuGetProcAddress to cuGetProcAddress_v2, the form with a query result.
  auto get = reinterpret_cast<GetProcAddress>(find_symbol(lib, "cuGetProcAddress_v2"));
  if (!get) {
    result.why = "the NVIDIA driver is too old (no cuGetProcAddress_v2; CUDA 12 or newer needed)";
    return result;
  }
  DriverApi a{};
  std::string& why = result.why;
#define GB_RESOLVE(name) \
  if (!resolve(get, a.name, #name, why)) return result;
  GB_DRIVER_ENTRY_POINTS(GB_RESOLVE)
#undef GB_RESOLVE
  result.api = a;
  return result;
}

const LoadResult& loaded() {
  static const LoadResult result = load();
  return result;
}

}  // namespace

const DriverApi* load_driver(std::string& why) {
  const LoadResult& r = loaded();
  why = r.why;
  return r.api ? &*r.api : nullptr;
}

const DriverApi& api() {
  const LoadResult& r = loaded();
  if (!r.api) throw InternalError("CUDA driver used before it was loaded: " + r.why);
  return *r.api;
}

void throw_cuda_error(CUresult status, const char* call, const std::string& subject) {
  const char* name = nullptr;
  const char* text = nullptr;
  if (const DriverApi* a = loaded().api ? &*loaded().api : nullptr) {
    a->cuGetErrorName(status, &name);
    a->cuGetErrorString(status, &text);
  }
  std::string message = subject + ": " + called_function(call) + " failed: ";
  message += name ? name : "CUresult " + std::to_string(static_cast<int>(status));
  if (text) message += std::string(" (") + text + ")";
  throw CudaError(message);
}

void PrimaryContextTraits::destroy(Handle device) {
  GB_CU_CHECK(api().cuDevicePrimaryCtxRelease(device), "releasing the GPU context");
}
void ModuleTraits::destroy(Handle module) {
  GB_CU_CHECK(api().cuModuleUnload(module), "unloading the kernel module");
}
void DevicePtrTraits::destroy(Handle ptr) {
  GB_CU_CHECK(api().cuMemFree(ptr), "freeing GPU memory");
}
void HostRegistrationTraits::destroy(Handle host) {
  GB_CU_CHECK(api().cuMemHostUnregister(host), "unpinning host memory");
}
void HostAllocationTraits::destroy(Handle host) {
  GB_CU_CHECK(api().cuMemFreeHost(host), "freeing pinned host memory");
}
void StreamTraits::destroy(Handle stream) {
  GB_CU_CHECK(api().cuStreamDestroy(stream), "destroying a CUDA stream");
}
void EventTraits::destroy(Handle event) {
  GB_CU_CHECK(api().cuEventDestroy(event), "destroying a CUDA event");
}

Context::Context(CUdevice device) {
  GB_CU_CHECK(api().cuDevicePrimaryCtxRetain(&context_, device), "creating the GPU context");
  retained_ = UniqueHandle<PrimaryContextTraits>(device);
  GB_CU_CHECK(api().cuCtxSetCurrent(context_), "making the GPU context current");
}

void Context::make_current() const {
  GB_CU_CHECK(api().cuCtxSetCurrent(context_), "making the GPU context current");
}

Module::Module(const void* image, const std::string& what) {
  CUmodule raw = nullptr;
  GB_CU_CHECK(api().cuModuleLoadData(&raw, image), "loading " + what);
  module_ = UniqueHandle<ModuleTraits>(raw);
}

CUfunction Module::function(const char* name, unsigned dynamic_shared_bytes) const {
  CUfunction f = nullptr;
  GB_CU_CHECK(api().cuModuleGetFunction(&f, module_.get(), name),
              std::string("finding kernel ") + name);
  constexpr unsigned kDefaultLimit = 48 * 1024;
  if (dynamic_shared_bytes > kDefaultLimit) {
    GB_CU_CHECK(api().cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                         static_cast<int>(dynamic_shared_bytes)),
                std::string("giving kernel ") + name + " " + std::to_string(dynamic_shared_bytes) +
                    " bytes of shared memory");
  }
  return f;
}

DeviceBuffer::DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
  CUdeviceptr raw = 0;
  GB_CU_CHECK(api().cuMemAlloc(&raw, bytes ? bytes : 1),
              "allocating " + std::to_string(bytes) + " bytes of GPU memory");
  ptr_ = UniqueHandle<DevicePtrTraits>(raw);
}

PinnedHostRange::PinnedHostRange(void* host, std::size_t bytes) {
  // Portable: pinned for every context, so any GPU of a batch may copy it.
  if (host && bytes &&
      api().cuMemHostRegister(host, bytes, CU_MEMHOSTREGISTER_PORTABLE) == CUDA_SUCCESS) {
    registered_ = UniqueHandle<HostRegistrationTraits>(host);
  }
}

PinnedHostBuffer::PinnedHostBuffer(std::size_t bytes) : bytes_(bytes) {
  void* raw = nullptr;
  GB_CU_CHECK(api().cuMemHostAlloc(&raw, bytes ? bytes : 1, CU_MEMHOSTALLOC_PORTABLE),
              "allocating " + std::to_string(bytes) + " bytes of pinned host memory");
  memory_ = UniqueHandle<HostAllocationTraits>(raw);
}

Stream::Stream() {
  CUstream raw = nullptr;
  GB_CU_CHECK(api().cuStreamCreate(&raw, CU_STREAM_NON_BLOCKING), "creating a CUDA stream");
  stream_ = UniqueHandle<StreamTraits>(raw);
}

void Stream::synchronize(const std::string& subject) const {
  GB_CU_CHECK(api().cuStreamSynchronize(stream_.get()), subject);
}

Event::Event() {
  CUevent raw = nullptr;
  GB_CU_CHECK(api().cuEventCreate(&raw, CU_EVENT_DEFAULT), "creating a CUDA event");
  event_ = UniqueHandle<EventTraits>(raw);
}

void Event::record(const Stream& stream) const {
  GB_CU_CHECK(api().cuEventRecord(event_.get(), stream.get()), "recording a CUDA event");
}

void Event::wait_on(const Stream& stream) const {
  GB_CU_CHECK(api().cuStreamWaitEvent(stream.get(), event_.get(), 0), "ordering CUDA streams");
}

void Event::synchronize(const std::string& subject) const {
  GB_CU_CHECK(api().cuEventSynchronize(event_.get()), subject);
}

float Event::elapsed_since(const Event& start) const {
  GB_CU_CHECK(api().cuEventSynchronize(event_.get()), "waiting for a CUDA event");
  float ms = 0;
  GB_CU_CHECK(api().cuEventElapsedTime(&ms, start.get(), event_.get()), "reading a CUDA event");
  return ms;
}

}  // namespace gpublur::cuda
