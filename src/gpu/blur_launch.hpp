// blur_launch.hpp — the launches that make up one blur on the GPU, shared by the program and the
// benchmark: one kernel; kGeneral's vertical and horizontal passes through an intermediate; or a
// planar blur's split into planes, blur of each plane and merge back (kernels/planes.cu).
#pragma once

#include <cstddef>

#include "codegen/launch_dims.hpp"
#include "gpu/cuda_driver.hpp"

namespace gpublur {

/// The entry points of a loaded kernel's module.
struct BlurFunctions {
  CUfunction blur = nullptr;        // kernel.entry
  CUfunction horizontal = nullptr;  // kGeneral's second pass
  CUfunction split = nullptr;       // a planar blur's first launch ...
  CUfunction merge = nullptr;       // ... and last
};
BlurFunctions blur_functions(const cuda::Module& module, const GeneratedKernel& kernel);

/// Device memory a blur of a stack of `images` width x height images needs besides its input and
/// output: kGeneral's intermediate, or a planar blur's two planar buffers; 0 for the others.
std::size_t blur_scratch_bytes(const GeneratedKernel& kernel, int width, int height,
                               int images = 1);

/// An image on the GPU: pitched rows of `width` pixels. A stack of images: image i starts
/// height * pitch bytes after image i - 1.
struct DeviceImage {
  CUdeviceptr pointer = 0;
  int pitch = 0;
};

/// Enqueues the blur of the stack of `images` images `in` into `out` on `stream`, every image on
/// its own (borders at its own edges); `dims` is the blur kernel's launch (from launch_dims, with
/// the same `images`), `scratch` at least blur_scratch_bytes. Throws CudaError.
void launch_blur(const GeneratedKernel& kernel, const BlurFunctions& functions,
                 const LaunchDims& dims, DeviceImage in, DeviceImage out, int width, int height,
                 int images, CUdeviceptr scratch, CUstream stream);

}  // namespace gpublur
