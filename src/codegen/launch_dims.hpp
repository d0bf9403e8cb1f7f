// launch_dims.hpp — the grid and block a kernel is launched with for an image (or a stack of
// images) on a GPU: the image's tiles, and for the tensor-core kernel the width of those tiles,
// from a model of how its blocks fill the GPU's SMs in waves. Pure; thread-safe.
#pragma once

#include <cstddef>

#include "codegen/codegen.hpp"

namespace gpublur {

struct LaunchDims {
  unsigned grid_x = 1;
  unsigned grid_y = 1;
  unsigned grid_z = 1;  // one grid layer per image of a stack (times the planes of a planar blur)
  unsigned block = 1;
  unsigned dynamic_shared_bytes = 0;  // also the function's opt-in (cuda::allow_dynamic_shared)
};

/// Grid and block for a stack of `images` images of width x height pixels each (channels from
/// the kernel), one after another in memory, blurred by one launch (kernels/common.cuh,
/// layer_image). With the GPU's SM count, the tensor-core kernel's tiles are narrowed where that
/// spreads a grid of few waves more evenly over the SMs (its kernel takes the tile width from the
/// grid). Throws InternalError where the stack passes the grid's 65535 layers.
LaunchDims launch_dims(const GeneratedKernel& kernel, int width, int height, int sm_count = 0,
                       int images = 1);

/// Grid and block of a planar blur's split and merge (kernels/planes.cu): 4 pixels a thread, a
/// grid layer per image of the stack.
LaunchDims plane_copy_dims(int width, int height, int images = 1);

/// Bytes between rows of an image on the GPU: row_bytes rounded up to 128, so every row starts
/// on a cache-line boundary and the kernels may use 16-byte accesses.
std::size_t device_pitch(std::size_t row_bytes);

}  // namespace gpublur
