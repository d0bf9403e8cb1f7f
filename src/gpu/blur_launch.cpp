// blur_launch.cpp — one blur's launches, in stream order.
#include "gpu/blur_launch.hpp"

#include "base/checked_math.hpp"
#include "base/errors.hpp"

namespace gpublur {
namespace {

void launch(CUfunction function, const LaunchDims& dims, CUstream stream, void** args,
            const char* what) {
  GB_CU_CHECK(cuda::api().cuLaunchKernel(function, dims.grid_x, dims.grid_y, dims.grid_z, dims.block, 1, 1,
                                         dims.dynamic_shared_bytes, stream, args, nullptr),
              std::string("launching the ") + what);
}

std::size_t general_mid_pitch(const GeneratedKernel& kernel, int width) {
  return device_pitch(checked_mul(static_cast<std::size_t>(width) * static_cast<std::size_t>(kernel.channels),
                                  static_cast<std::size_t>(kernel.mid_bytes)));
}

// A planar buffer: kernel.schedule.planes() planes of `rows` rows of `width` bytes (a stack's
// planes hold every image's rows: kernels/planes.cu).
std::size_t planar_bytes(const GeneratedKernel& kernel, int width, std::size_t rows) {
  return checked_mul(device_pitch(static_cast<std::size_t>(width)),
                     checked_mul(rows, static_cast<std::size_t>(kernel.schedule.planes())));
}

std::size_t stack_rows(int height, int images) {
  return checked_mul(static_cast<std::size_t>(height), static_cast<std::size_t>(images));
}

}  // namespace

BlurFunctions blur_functions(const cuda::Module& module, const GeneratedKernel& kernel) {
  BlurFunctions f;
  f.blur = module.function(kernel.entry.c_str(), kernel.schedule.launch_shared_bytes());
  if (kernel.schedule.variant == KernelVariant::kGeneral) f.horizontal = module.function(kernel.horizontal_entry.c_str());
  if (kernel.schedule.planes()) {
    f.split = module.function(kernel.split_entry.c_str());
    f.merge = module.function(kernel.merge_entry.c_str());
  }
  return f;
}

std::size_t blur_scratch_bytes(const GeneratedKernel& kernel, int width, int height, int images) {
  const std::size_t rows = stack_rows(height, images);
  if (kernel.schedule.variant == KernelVariant::kGeneral) {
    return checked_mul(general_mid_pitch(kernel, width), rows);
  }
  if (kernel.schedule.planes())
    return checked_mul(planar_bytes(kernel, width, rows), std::size_t{2});
  return 0;
}

void launch_blur(const GeneratedKernel& kernel, const BlurFunctions& functions,
                 const LaunchDims& dims, DeviceImage in, DeviceImage out, int width, int height,
                 int images, CUdeviceptr scratch, CUstream stream) {
  int w = width, h = height;
  if (kernel.schedule.variant == KernelVariant::kGeneral) {  // vertical into the intermediate, then horizontal
    DeviceImage mid{scratch, static_cast<int>(general_mid_pitch(kernel, width))};
    void* vertical_args[] = {&in.pointer, &in.pitch, &mid.pointer, &mid.pitch, &w, &h};
    launch(functions.blur, dims, stream, vertical_args, "vertical pass");
    // The input again: the matrix's and the unsharp mask's finish see the input pixel.
    void* horizontal_args[] = {&mid.pointer, &mid.pitch, &out.pointer, &out.pitch,
                               &w,           &h,         &in.pointer,  &in.pitch};
    launch(functions.horizontal, dims, stream, horizontal_args, "horizontal pass");
    return;
  }
  if (kernel.schedule.planes()) {  // split, blur every plane at once, merge
    const int pitch = static_cast<int>(device_pitch(static_cast<std::size_t>(width)));
    DeviceImage planes_in{scratch, pitch};
    DeviceImage planes_out{scratch + planar_bytes(kernel, width, stack_rows(height, images)),
                           pitch};
    const LaunchDims copy = plane_copy_dims(width, height, images);
    void* split_args[] = {&in.pointer, &in.pitch, &planes_in.pointer, &planes_in.pitch, &w, &h};
    launch(functions.split, copy, stream, split_args, "split into planes");
    void* blur_args[] = {&planes_in.pointer, &planes_in.pitch, &planes_out.pointer, &planes_out.pitch, &w, &h};
    launch(functions.blur, dims, stream, blur_args, "blur kernel");
    void* merge_args[] = {&planes_out.pointer, &planes_out.pitch, &out.pointer, &out.pitch, &w, &h};
    launch(functions.merge, copy, stream, merge_args, "merge of the planes");
    return;
  }
  void* args[] = {&in.pointer, &in.pitch, &out.pointer, &out.pitch, &w, &h};
  launch(functions.blur, dims, stream, args, "blur kernel");
}

}  // namespace gpublur
