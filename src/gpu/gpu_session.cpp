// gpu_session.cpp — probing the GPUs and holding one's primary context.
#include "gpu/gpu_session.hpp"

#include <atomic>

#include "base/errors.hpp"
#include "gpu/session_access.hpp"

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


}  // namespace gpublur
