// stack_run.cpp — a stack's buffers, copies and launch.
#include "gpu/stack_run.hpp"

#include "base/checked_math.hpp"

namespace gpublur {
namespace {

void ensure(std::optional<cuda::DeviceBuffer>& buffer, std::size_t bytes) {
  if (bytes == 0 || (buffer && buffer->size() >= bytes)) return;
  buffer.reset();  // free before allocating: the old one is no longer in use
  buffer.emplace(bytes);
}

CUDA_MEMCPY2D copy_2d(std::size_t row_bytes, int rows) {
  CUDA_MEMCPY2D copy{};
  copy.WidthInBytes = row_bytes;
  copy.Height = static_cast<std::size_t>(rows);
  return copy;
}

}  // namespace

void StackBuffers::reserve(const GeneratedKernel& kernel, int width, int height,
                           std::size_t row_bytes, std::size_t inputs, std::size_t outputs,
                           int launched) {
  pitch_ = device_pitch(row_bytes);
  image_bytes_ = checked_mul(pitch_, static_cast<std::size_t>(height));
  ensure(in_, checked_mul(image_bytes_, inputs));
  ensure(out_, checked_mul(image_bytes_, outputs));
  ensure(scratch_, blur_scratch_bytes(kernel, width, height, launched));
}

void enqueue_upload(const void* host, std::size_t row_bytes, int rows, CUdeviceptr device,
                    std::size_t pitch, CUstream stream) {
  CUDA_MEMCPY2D copy = copy_2d(row_bytes, rows);
  copy.srcMemoryType = CU_MEMORYTYPE_HOST;
  copy.srcHost = host;
  copy.srcPitch = row_bytes;
  copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  copy.dstDevice = device;
  copy.dstPitch = pitch;
  GB_CU_CHECK(cuda::api().cuMemcpy2DAsync(&copy, stream), "copying an image to the GPU");
}

void enqueue_download(CUdeviceptr device, std::size_t pitch, void* host, std::size_t row_bytes,
                      int rows, CUstream stream) {
  CUDA_MEMCPY2D copy = copy_2d(row_bytes, rows);
  copy.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  copy.srcDevice = device;
  copy.srcPitch = pitch;
  copy.dstMemoryType = CU_MEMORYTYPE_HOST;
  copy.dstHost = host;
  copy.dstPitch = row_bytes;
  GB_CU_CHECK(cuda::api().cuMemcpy2DAsync(&copy, stream), "copying a result from the GPU");
}

void enqueue_stack_blur(const GeneratedKernel& kernel, const BlurFunctions& functions,
                        const StackBuffers& buffers, int width, int height, int images,
                        int sm_count, CUstream stream) {
  const LaunchDims dims = launch_dims(kernel, width, height, sm_count, images);
  const int pitch = static_cast<int>(buffers.pitch());
  launch_blur(kernel, functions, dims, {buffers.input(0), pitch}, {buffers.output(0), pitch}, width,
              height, images, buffers.scratch(), stream);
}

}  // namespace gpublur
