// launch_dims.cpp — grids for the kernels, and the tensor-core kernel's wave model: how wide its
// tiles are for a given image and GPU.
#include "codegen/launch_dims.hpp"

#include <algorithm>
#include <string>

#include "base/errors.hpp"

namespace gpublur {
namespace {

// CUDA's limit on a grid's third dimension: the layers of a stack of images.
constexpr long long kMaxGridLayers = 65535;

// The cost of one step in tensor-core products, for comparing tile widths: a horizontal
// product (16 per window chunk; the narrow one 16, its k16 form 8) and a vertical one (8 per
// chunk).
long long mma_horizontal_cost(const gb_mma::Geometry& g) {
  return g.tiny() ? 8LL : 16LL * (g.narrow() ? 1 : g.chunks_x());
}
long long mma_vertical_cost(const gb_mma::Geometry& g) { return 8LL * g.chunks_y(); }

// A block's time: each unit of output a horizontal product, each vertical step (unit or halo)
// a vertical one, and one step of start-up.
long long mma_block_time(const gb_mma::Geometry& g, long long units) {
  return units * mma_horizontal_cost(g) + (units + g.chunks_x() - 1) * mma_vertical_cost(g) +
         mma_horizontal_cost(g) + mma_vertical_cost(g);
}

// Small kernels (4 stages): a small image gives the widest tiles too few blocks to fill the
// SMs, each a long chain of steps; narrower tiles spread it out. Below 4 blocks per SM, pick the
// width whose waves x block time is least (measured: this wins there, and loses above, where
// narrower tiles' extra halo steps are pure cost). Above, keep the widest, unless a wider tile
// drops the last wave:
// - where the last wave is at most an eighth full, a width up to half again that fits the
//   blocks in the waves before it (now that the last column of tiles stops at the image's
//   edge, a wider tile costs little);
// - where a second wave follows the first, a width up to 1.6 times that fits them in one (a
//   second wave runs on the few blocks per SM left, latency-bound, at well over half the first
//   one's time). Needing twice the width measured slower.
// Wider tiles in general measured slower at 4K and 8K.
long long small_kernel_units(const KernelSchedule& s, long long row_units, long long rows,
                             long long slots, int sm_count) {
  const gb_mma::Geometry& g = s.mma->geometry;
  const long long widest = s.tile_w / 32;
  const auto blocks = [&](long long units) { return (row_units + units - 1) / units * rows; };
  if (blocks(widest) >= 4LL * sm_count) {
    const long long full_waves = blocks(widest) / slots, last_wave = blocks(widest) % slots;
    const bool second_wave = full_waves == 1;
    if (last_wave == 0 || (last_wave * 8 > slots && !second_wave)) return widest;
    const long long limit = second_wave ? widest * 8 / 5 : widest + widest / 2;
    for (long long units = widest + 1; units <= limit; ++units) {
      if (blocks(units) <= full_waves * slots) return units;
    }
    return widest;
  }
  long long best = widest, best_cost = -1;
  for (long long units = widest; units >= 1; --units) {
    const long long cost = (blocks(units) + slots - 1) / slots * mma_block_time(g, units);
    if (best_cost < 0 || cost < best_cost) best = units, best_cost = cost;
  }
  return best;
}

// Large kernels (2 stages, 1 to 3 blocks per SM): their widest tiles (up to 64 units, chosen
// to amortise the halo) leave SMs idle at 1080p and 4K. Model an SM's time: its blocks a wave
// at a time, where k blocks sharing an SM each take
// 1 + (k - 1) / 2 times as long as one alone (they are latency-bound, so sharing costs less than
// k times), the last wave holding fewer per SM; a block's time with 8 more steps of start-up
// (its first copies' latency). The widths are those that tile-width sweeps measured, up to
// twice the widest: there this picks close to the best measured width at every size and
// channel count. (56 units, not among them, ran slower than 48 and 64 at 4K and 8K RGB
// 255x255.)
long long large_kernel_units(const KernelSchedule& s, long long row_units, long long rows,
                             int sm_count) {
  constexpr long long kStartSteps = 8;
  constexpr long long kWidths[] = {8, 12, 16, 20, 24, 32, 40, 48, 64};
  const gb_mma::Geometry& g = s.mma->geometry;
  const long long widest = s.tile_w / 32, per_sm = s.mma->resident_per_sm;
  const long long slots = per_sm * sm_count;
  const long long step = mma_horizontal_cost(g) + mma_vertical_cost(g);
  const auto sharing_x2 = [](long long k) { return 2 + (k - 1); };  // 2 (1 + (k - 1) / 2)
  long long best = widest, best_cost = -1;
  for (const long long units : kWidths) {
    if (units > 2 * widest) break;
    const long long tiles = (row_units + units - 1) / units;
    const long long balanced = (row_units + tiles - 1) / tiles;  // the width the kernel runs
    const long long blocks = tiles * rows, full = blocks / slots, rest = blocks % slots;
    const long long last = rest == 0 ? 0 : sharing_x2((rest + sm_count - 1) / sm_count);
    const long long block_time = mma_block_time(g, balanced) + kStartSteps * step;
    const long long cost = (full * sharing_x2(per_sm) + last) * block_time;
    if (best_cost < 0 || cost < best_cost) best = units, best_cost = cost;
  }
  return best;
}

// Tile width in 32-byte units for blur_mma.cu on `sm_count` SMs (0: unknown, the widest).
long long mma_tile_units(const KernelSchedule& s, long long row_units, long long rows,
                         int sm_count) {
  const long long slots = static_cast<long long>(sm_count) * s.mma->resident_per_sm;
  if (sm_count <= 0 || slots <= 0) return s.tile_w / 32;
  return s.mma->geometry.stages == 4 ? small_kernel_units(s, row_units, rows, slots, sm_count)
                                     : large_kernel_units(s, row_units, rows, sm_count);
}

}  // namespace

LaunchDims launch_dims(const GeneratedKernel& kernel, int width, int height, int sm_count,
                       int images) {
  const auto& s = kernel.schedule;
  // A grid layer per image of the stack; a planar blur's, per plane of each image.
  const long long layers = static_cast<long long>(images) * std::max(1, s.planes());
  if (images < 1 || layers > kMaxGridLayers) {
    throw InternalError("a stack of " + std::to_string(images) + " images" +
                        (s.planes() ? " of " + std::to_string(s.planes()) + " planes" : "") +
                        " does not fit one launch (at most " + std::to_string(kMaxGridLayers) +
                        " grid layers)");
  }
  if (s.variant == KernelVariant::kGeneral) {  // one thread per pixel, one block row per row
    return {static_cast<unsigned>((width + s.block_threads - 1) / s.block_threads),
            static_cast<unsigned>(height), static_cast<unsigned>(layers),
            static_cast<unsigned>(s.block_threads)};
  }
  if (s.variant == KernelVariant::kDenseMma) {  // a tile of rows of bytes per block
    const long long row_bytes = static_cast<long long>(width) * kernel.channels;
    return {static_cast<unsigned>((row_bytes + s.tile_w - 1) / s.tile_w),
            static_cast<unsigned>((height + s.tile_h - 1) / s.tile_h),
            static_cast<unsigned>(layers), static_cast<unsigned>(s.block_threads)};
  }
  if (s.variant == KernelVariant::kDense || s.variant == KernelVariant::kDp4a ||
      s.variant == KernelVariant::kSeparable) {
    // a tile of pixels per block
    return {static_cast<unsigned>((width + s.tile_w - 1) / s.tile_w),
            static_cast<unsigned>((height + s.tile_h - 1) / s.tile_h),
            static_cast<unsigned>(layers), static_cast<unsigned>(s.block_threads)};
  }
  const long long row_bytes = static_cast<long long>(width) * (s.planes() ? 1 : kernel.channels);
  const long long rows = (height + s.tile_h - 1) / s.tile_h;
  long long tile_w = s.tile_w;
  if (s.variant == KernelVariant::kMma) {  // the wave model sees every layer's rows of tiles
    const long long row_units = (row_bytes + 31) / 32;
    tile_w = 32 * mma_tile_units(s, row_units, rows * layers, sm_count);
  }
  return {static_cast<unsigned>((row_bytes + tile_w - 1) / tile_w), static_cast<unsigned>(rows),
          static_cast<unsigned>(layers), static_cast<unsigned>(s.block_threads),
          s.launch_shared_bytes()};
}

std::size_t device_pitch(std::size_t row_bytes) { return (row_bytes + 127) / 128 * 128; }

LaunchDims plane_copy_dims(int width, int height, int images) {
  constexpr unsigned kThreads = 128;
  const unsigned groups = static_cast<unsigned>((width + 3) / 4);
  return {(groups + kThreads - 1) / kThreads, static_cast<unsigned>(height),
          static_cast<unsigned>(images), kThreads, 0};
}

}  // namespace gpublur
