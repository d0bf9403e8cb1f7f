// gpu_blur.cpp — device probing, upload, launch, download through the Driver API.
#include "gpu_blur.hpp"

#include "cuda_driver.hpp"
#include "errors.hpp"

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

unsigned blocks(std::size_t extent, int tile) {
  return static_cast<unsigned>((extent + static_cast<std::size_t>(tile) - 1) /
                               static_cast<std::size_t>(tile));
}

}  // namespace

std::string driver_version_string(int version) {
  return "CUDA " + std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

std::optional<GpuInfo> probe_gpu(std::string& why) {
  const cuda::DriverApi* driver = cuda::load_driver(why);
  if (!driver) return std::nullopt;
  if (const CUresult status = driver->cuInit(0); status != CUDA_SUCCESS) {
    const char* name = nullptr;
    driver->cuGetErrorName(status, &name);
    why = std::string("cuInit failed: ") + (name ? name : "unknown error");
    if (status == CUDA_ERROR_NO_DEVICE) why = "no NVIDIA GPU found (cuInit: CUDA_ERROR_NO_DEVICE)";
    return std::nullopt;
  }
  int count = 0;
  GB_CU_CHECK(driver->cuDeviceGetCount(&count), "counting GPUs");
  if (count < 1) {
    why = "no NVIDIA GPU found";
    return std::nullopt;
  }
  GpuInfo info;
  const CUdevice device = device_handle(info.ordinal);
  char name[256] = {};
  GB_CU_CHECK(driver->cuDeviceGetName(name, sizeof name - 1, device), "querying the GPU's name");
  info.name = name;
  info.arch = Arch{attribute(device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
                   attribute(device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)};
  GB_CU_CHECK(driver->cuDriverGetVersion(&info.driver_version), "querying the driver version");
  GB_CU_CHECK(driver->cuDeviceTotalMem(&info.memory_bytes, device), "querying the GPU's memory");
  return info;
}

GpuRun blur_on_gpu(const Image& in, const GeneratedKernel& kernel, const CompiledKernel& compiled,
                   const GpuInfo& gpu) {
  if (in.channels != kernel.channels) {
    throw InternalError("kernel generated for " + std::to_string(kernel.channels) +
                        " channels, image has " + std::to_string(in.channels));
  }
  const auto& driver = cuda::api();
  const std::size_t bytes = in.byte_count();

  // Owners in dependency order: the context outlives everything created in it.
  cuda::Context context(device_handle(gpu.ordinal));
  cuda::Module module(compiled.module_image(), "the kernel (" +
                                                   std::string(target_name(compiled.plan.target)) +
                                                   " for " + compiled.plan.arch.sm() + ")");
  const CUfunction function = module.function(kernel.entry.c_str());
  cuda::DeviceBuffer source(bytes);
  cuda::DeviceBuffer result(bytes);
  cuda::Stream stream;
  cuda::Event start, stop;

  GpuRun run{make_image(in.width, in.height, in.channels), 0};
  GB_CU_CHECK(driver.cuMemcpyHtoDAsync(source.get(), in.pixels.data(), bytes, stream.get()),
              "copying the image to the GPU");

  CUdeviceptr in_ptr = source.get(), out_ptr = result.get();
  int width = in.width, height = in.height;
  void* args[] = {&in_ptr, &out_ptr, &width, &height};
  const KernelSchedule& s = kernel.schedule;
  start.record(stream);
  GB_CU_CHECK(driver.cuLaunchKernel(function, blocks(in.row_bytes(), s.tile_w),
                                    blocks(static_cast<std::size_t>(in.height), s.tile_h), 1,
                                    static_cast<unsigned>(s.block_threads), 1, 1, 0, stream.get(),
                                    args, nullptr),
              "launching the blur kernel");
  stop.record(stream);
  GB_CU_CHECK(driver.cuMemcpyDtoHAsync(run.output.pixels.data(), result.get(), bytes, stream.get()),
              "copying the result from the GPU");
  stream.synchronize("running the blur kernel");
  run.kernel_ms = stop.elapsed_since(start);
  return run;
}

}  // namespace gpublur
