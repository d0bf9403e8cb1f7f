// blur_mma.cu — the fused separable blur on integer tensor cores (sm_80 and later), for every
// radius whose slots fit the GPU's shared memory (codegen checks; 255 x 255 RGBA does). Same
// arithmetic as every other path (common.cuh); only the order of exact integer additions differs.
//
// Both passes are small integer matrix products, mma.m16n8k32 with u8 operands and s32 sums:
//
//  vertical   a[o][x] = sum_k W[o][k] p[k][x]: W is the banded 16 x 32 matrix of the vertical
//             taps (W[o][k] = qy[k - o]), p is 32 input rows of 8 byte columns. The 16-bit taps
//             are split into bytes, q = 256 qh + ql, so a = 256 (Wh p) + (Wl p): two products,
//             each sum < 2^24, exact in s32.
//  horizontal b[y][x] = sum_k m[y][k] T[k][x]: m is the intermediate (16 rows of a 32-byte
//             window), T the banded matrix of the horizontal taps with the channel stride. Both
//             m and q are 16-bit, split into bytes: b = 2^16 mh.qh + 2^8 (mh.ql + ml.qh) + ml.ql,
//             four products, combined mod 2^32 (b < 2^32, weights.hpp).
//
// One warp owns 16 rows of a block's tile through both passes and walks across the tile 32
// intermediate columns at a time. Each step's input rows (32 bytes each, border applied) are
// copied into a ring of kStages shared slots with cp.async, several steps ahead, so the copies
// are in flight while the warp multiplies; the vertical product reads them with ldmatrix.trans.
// The intermediate goes to a ring of kChunksX slots as two byte planes (low and high byte of m);
// as soon as a 32 x (32 kChunksX) window is complete the horizontal product reads it and writes 8
// consecutive output bytes per lane and row. Warps share nothing but the block's read-only tap
// table, so no block-wide barrier is needed after it is built. Staged rows and the planes are
// laid out so that no shared-memory access of a step has a bank conflict (stage_offset,
// kPlaneStride, plane_row).
//
// A step is a couple of hundred instructions, so the kernel is held by issue and latency more
// than by memory; what
// keeps it small: the rounding comes from a constant staged row (kRoundInRow), shared memory is
// addressed by lane constants worked out once (opaque), the copies' and the outputs' pointers
// are carried from step to step, the narrow kernel runs its steps in threes so its ring slots
// are constants, and walks wholly inside the image skip the border checks (Walk::run) and take no
// branch inside a three: their copies go out under a predicate, and the two steps that complete
// no window come first, on their own. Its staged pieces are whole sectors (kPad = 32).
//
// The edges cost little more than the interior (a warp's walk is as long as its slowest warp's,
// and edge warps were once the slowest): rows outside the image are copied from
// the rows the border maps them to (the constant border's: stored as the constant), 16-byte pieces
// crossing or leaving the left or right edge load their bytes all at once, a narrow kernel's step
// wholly outside the image is neither copied nor multiplied but filled from the edge's own
// intermediate columns (the constant border's: with the constant's) (fill_outside), and the last
// column of tiles walks only to the image's edge.
//
// A horizontal halo of at most 12 bytes (7 x 7 up to RGBA) takes the narrow horizontal product
// (horizontal_task_narrow): each 8-output N-tile needs one k32 chunk of the window, not two, and
// every N-tile the same tap fragments, which stay in registers: half the products, no tap loads.
// A halo of at most 4 bytes (gray up to 9 x 9, 3 x 3 of any channel count) needs only 16 window
// columns per N-tile, and takes the k16 form of it: half the tensor work again, 2/3 of the loads.
//
// Large kernels need more k32 steps per product, not another structure: each vertical step
// multiplies ceil((16 + 2r) / 32) chunks of staged rows, each horizontal one 1 + pad / 16 chunks
// of the window. Their shared slots grow with r, so codegen gives them 2 input stages (a step's
// products then outlast a copy), fewer warps and a wider tile (the halo's vertical steps are
// recomputed by each block), and the horizontal taps as a plain tap-window table that lanes
// gather from instead of ready-made fragments (2 KiB per chunk).
//
// A convolution matrix of rank one (kExactSums) runs the same walk: its column as the vertical
// taps and its row as the horizontal ones, 16-bit integers whose high bytes are s8 where any is
// negative (the products then take s8 operands, mma_ptx.cuh), no rounding between the passes
// (m = a: 16 bits by the bound codegen checks) and Matrix8's finish of the exact sum. Where every
// tap of a pass is one byte (0..255: a box, a small binomial; mma_layout.cuh's kHighX and kHighY),
// the products with the taps' high bytes are zero and are not made: one vertical product and two
// horizontal ones instead of two and four.
//
// The pieces, each in its own file: mma_geometry.cuh (shapes, shared with codegen), mma_layout.cuh
// (this instance's constants and shared-memory layout), mma_ptx.cuh, mma_taps.cuh (taps as
// operands), mma_stage.cuh (input staging), mma_finish.cuh (the output bytes: the Gaussian's, or
// the 8-bit unsharp mask's from the same sums and the input), mma_products.cuh (the two
// products); here the walk that strings them together, and the entry point.
#ifndef GB_MMA_PRODUCTS_INCLUDED
#include "mma_products.cuh"
#endif

namespace gb {

// How a walk runs (its steps' template argument): with every border check; with its copied steps
// all inside the image and kFillOutside's steps filled from the edge; or wholly inside, neither.
constexpr int kBorderChecks = 0, kFilledEdges = 1, kInterior = 2;
// Whether a step completes a unit's window: known to the caller, or checked (Walk::step).
constexpr int kNever = 0, kAlways = 1, kMaybe = 2;

// The intermediate of a column of the constant border (the constant v of `channel` in every
// row): the Gaussian's taps sum to 2^16, so m = 256 v (+ 2^7 where the rounding rides in a row);
// exact sums' m = v times the vertical taps' sum, as two's complement bits.
__device__ __forceinline__ unsigned constant_mid(int channel) {
  const unsigned v = constant_border(channel);
  return kExactSums ? v * static_cast<unsigned>(tap_sum_y())
                    : 256u * v + (kRoundInRow ? kVerticalRound : 0u);
}

// One warp's walk across its tile: what every step needs, and the step itself.
struct Walk {
  const unsigned char* __restrict__ in;
  int in_pitch, width, height, row_bytes, column_tasks, xv0, y_top, lane;
  Lane l;
  StageSource source;
  const unsigned char* ahead_src;  // source.lane_src + 32 (the step being staged)
  unsigned char* stages;           // the warp's slots, generic (byte copies, ldmatrix) ...
  unsigned stages_shared;          // ... and shared
  unsigned stage_lane;             // the lane's cp.async piece in slot 0 (shared)
  unsigned reads;                  // the lane's ldmatrix row of the vertical product in slot 0
  unsigned store_lane, load_lane;  // the lane's intermediate words (vertical_task, horizontal_task_narrow)
  WeightsY weights;
  TapSource taps;
  NarrowTaps narrow;
  OutputTarget target;
  StagedLanes staged;         // kStagedInputs: the lane's input bytes in a slot ...
  unsigned next_inputs[4];    // ... and those of the unit due at the next step
  // kFillOutside: step 0 wholly left of the image (the first column of tiles), or the last step
  // wholly right of it (the last column). Such a step is not copied; its vertical product (of
  // whatever its slot holds) is overwritten where the window reads it, by fill_outside at
  // fill_left (step 1, once the edge's columns are multiplied) or at last_staged + 1 (that step).
  int last_staged = 0;  // the last step that is copied (the first: 0, or 1 when fill_left is)
  int fill_left = -1;

  __device__ __forceinline__ void start() {
    stages_shared = shared_address(stages);
    stage_lane = stages_shared + source.lane_dst;
    opaque(stage_lane);
    reads = read_lane(stages_shared, lane);
    const unsigned plane_lo = stages_shared + kStages * kStageBytes;
    store_lane = plane_lo + plane_row(l.g) + plane_column(4 * l.t);
    load_lane = plane_lo + plane_row(l.g) + plane_column(kPad - kNarrowLead + 4 * l.t);
    opaque(store_lane);
    opaque(load_lane);
    if (kStagedInputs) staged = staged_lanes(l);
    opaque(source.first_inside);
    opaque(source.end_inside);
    opaque(target.units_inside);
    ahead_src = source.lane_src;
  }

  // Which steps lie wholly outside the image (kFillOutside); before inside() and run().
  __device__ __forceinline__ void find_edges() {
    const bool left_outside = kFillOutside && xv0 + 32 <= 0;
    const bool right_outside = kFillOutside && xv0 + 32 * (column_tasks - 1) >= row_bytes;
    last_staged = column_tasks - (right_outside ? 2 : 1);
    fill_left = left_outside ? 1 : -1;
  }

  // Writes the intermediate of image byte columns x_begin .. x_end - 1 (at most kHaloX of them,
  // outside the image, in the ring) as that of the columns the border maps them to: the vertical
  // product of a column outside the image is the product of the column it reads, and those lie
  // within kHaloX + 1 bytes of the edge, in the ring too. Lane: row lane % 16 of plane lane / 16.
  // The constant border's columns outside are the constant v in every row, so their intermediate
  // is a constant too (constant_mid).
  __device__ __forceinline__ void fill_outside(int x_begin, int x_end) const {
    const unsigned base =
        stages_shared + kStages * kStageBytes + (lane >> 4) * kPlaneBytes + plane_row(lane & 15);
#pragma unroll
    for (int j = 0; j < kHaloX; ++j) {
      const int x = x_begin + j;
      if (x < x_end) {
        int channel;
        const int from = source_column(x, width, channel) - xv0;  // intermediate columns of the walk
        const int to = x - xv0;
        const unsigned v = !kConstantBorder ? lds8(base + plane_column(32 * ((from >> 5) % 3) + (from & 31)))
                                            : (constant_mid(channel) >> (lane >= 16 ? 8 : 0)) & 255u;
        const int slot = (to >> 5) % 3;
        sts8(base + plane_column(32 * slot + (to & 31)), v);
        if (slot < 2) sts8(base + plane_column(32 * (slot + 3) + (to & 31)), v);  // the ring's copies
      }
    }
  }

  // Every copied step's rows and columns inside the image, and every unit's outputs: the walk
  // then runs without the border checks (kInterior or kFilledEdges; a filled step needs none).
  __device__ __forceinline__ bool inside(int units) const {
    return source.first_inside <= (fill_left > 0 ? 1 : 0) && source.end_inside > last_staged &&
           target.units_inside >= units;
  }

  // Stages the input of step `ahead` (or commits an empty group, which keeps the count). Only
  // prime() stages step 0, so only it checks for a left edge's step 0.
  // The walks without border checks issue the copies of a step they do not copy switched off,
  // into a slot no step reads (that of the step read one step ago): no branch.
  template <int kMode, bool kPrime = false>
  __device__ __forceinline__ void stage(int ahead) {
    const bool wanted = kMode == kInterior ? ahead < column_tasks
                                           : ahead <= last_staged && (!kPrime || ahead != fill_left - 1);
    const unsigned slot = (ahead & (kStages - 1)) * kStageBytes;
    if (kMode != kBorderChecks) {
      stage_step<true>(in, in_pitch, width, height, row_bytes, source, ahead_src, xv0 + 32 * ahead, y_top,
                       ahead, stages_shared + slot, stage_lane + slot, lane, wanted);
    } else if (wanted) {
      stage_step<false>(in, in_pitch, width, height, row_bytes, source, ahead_src, xv0 + 32 * ahead, y_top,
                        ahead, stages_shared + slot, stage_lane + slot, lane, true);
    } else {
      cp_async_commit();
    }
    ahead_src += 32;
    opaque(ahead_src);
  }

  // Stages the input kStages - 1 steps ahead, multiplies this step's vertical product into the
  // planes, then the horizontal product of the unit whose window it completes. kPhase is
  // task % 3: the kernel runs steps in threes, so the narrow product's slots are constants.
  // kDue: whether the step completes a unit's window (unit >= 0), when the caller knows it.
  template <int kPhase, int kMode, int kDue = kMaybe>
  __device__ __forceinline__ void step(int task) {
    const int unit = task - (kChunksX - 1);  // its window ends with this step's columns
    const bool due = kDue == kMaybe ? unit >= 0 : kDue == kAlways;
    constexpr int kUnitSlot = (kPhase + 1) % 3;  // narrow: unit = task - 2
    unsigned w[4];                              // narrow: the unit's N-tiles, the early ones first
    InputWords inputs{};                        // kLoadsInputs, not staged: in flight through the step
    unsigned staged_words[4] = {};              // kStagedInputs: the unit's, read a step ago
    if constexpr (kStagedInputs) {
#pragma unroll
      for (int j = 0; j < 4; ++j) staged_words[j] = next_inputs[j];
    }
    if constexpr (kDue != kNever) {  // not even compiled where no unit is due (compile time)
      if (kLoadsInputs && !kStagedInputs && due)
        inputs = load_inputs<kMode != kBorderChecks>(target, l, unit);
      if (kNarrow && due)
        narrow_tiles<kUnitSlot, 0, kEarlyTiles>(load_lane, narrow, w, staged_words, narrow_alpha(l));
    }
    stage<kMode>(task + kStages - 1);  // its slot was read one step ago, before the last __syncwarp
    cp_async_wait<kStages - 1>();  // this step's copies are kStages - 1 groups back
    __syncwarp();
    const unsigned slot_offset = (task & (kStages - 1)) * kStageBytes;
    const TaskWords tw = read_step(reads, slot_offset);
    if constexpr (kStagedInputs) staged_inputs(stages_shared + slot_offset, staged, next_inputs);
    const int slot = 32 * (kNarrow ? kPhase : task % kRing);  // its first intermediate column
    vertical_task(tw, weights, store_lane, plane_column(slot), kNarrow && kPhase < 2 ? plane_column(slot + 96) : -1);
    __syncwarp();
    if (kFillOutside && kMode != kInterior && (task == fill_left || task == last_staged + 1)) {
      if (task == fill_left) {  // the left edge, from step 1, just multiplied
        fill_outside(-kHaloX, 0);
      } else {  // the right edge, from the two steps before, still in the ring
        fill_outside(max(row_bytes, xv0 + 32 * task), row_bytes + kHaloX);
      }
      __syncwarp();
    }
    if constexpr (kDue == kNever) return;
    if (due) {
      if (kNarrow) {
        horizontal_task_narrow<kUnitSlot, kMode != kBorderChecks>(load_lane, narrow, w, unit, l, target,
                                                                  staged_words);
      } else {
        unsigned char* plane_lo = stages + kStages * kStageBytes;
        horizontal_task<kMode != kBorderChecks>(plane_lo, plane_lo + kPlaneBytes, taps, unit, l, lane, target,
                                                inputs);
      }
      target.next_unit();
    }
  }

  // The copies of the first kStages - 1 steps.
  template <int kMode>
  __device__ __forceinline__ void prime() {
#pragma unroll
    for (int s = 0; s < kStages - 1; ++s) stage<kMode, true>(s);
  }

  // The steps, once prime() has run.
  template <int kMode>
  __device__ __forceinline__ void run() {
    if (kNarrow && kMode != kBorderChecks) {
      // Steps 0 and 1 complete no unit's window; from step 2 on, in threes with no check inside
      // (column_tasks = units + 2 >= 3), then the one or two steps left.
      step<0, kMode, kNever>(0);
      step<1, kMode, kNever>(1);
      int task = 2;
#pragma unroll 1
      for (; task + 3 <= column_tasks; task += 3) {
        step<2, kMode, kAlways>(task);
        step<0, kMode, kAlways>(task + 1);
        step<1, kMode, kAlways>(task + 2);
      }
      if (task < column_tasks) step<2, kMode, kAlways>(task);
      if (task + 1 < column_tasks) step<0, kMode, kAlways>(task + 1);
    } else if (kNarrow) {  // in threes, for the ring's constant slots
#pragma unroll 1
      for (int task = 0; task < column_tasks; task += 3) {
        step<0, kMode>(task);
        if (task + 1 < column_tasks) step<1, kMode>(task + 1);
        if (task + 2 < column_tasks) step<2, kMode>(task + 2);
      }
    } else {  // in pairs: large kernels' steps are long, and three copies measured slower at 255 x 255
#pragma unroll 1
      for (int task = 0; task < column_tasks; task += 2) {
        step<0, kMode>(task);
        if (task + 1 < column_tasks) step<0, kMode>(task + 1);
      }
    }
  }
};

}  // namespace gb

extern "C" __global__ void __launch_bounds__(GB_BLOCK_THREADS, GB_MIN_BLOCKS)
    gb_blur_kernel(const unsigned char* __restrict__ in, int in_pitch, unsigned char* __restrict__ out,
                   int out_pitch, int width, int height) {
  using namespace gb;
  extern __shared__ __align__(16) unsigned char shared[];  // kSharedBytes: taps, then each warp's slots
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  const Lane l{lane >> 2, lane & 3};
  const int row_bytes = width * kChannels;
  // The tile's width follows from the grid (launch_dims balances it against the GPU's SMs):
  // the row's 32-byte units, shared evenly by the grid's columns; at most GB_TILE_W bytes.
  const int row_units = (row_bytes + 31) >> 5;
  const int tile_units = (row_units + gridDim.x - 1) / gridDim.x;
  // The last column of tiles holds what is left of the row, often less (a balanced width rarely
  // divides it): its walk ends at the image's edge, not with steps wholly outside it.
  const int units = min(tile_units, row_units - static_cast<int>(blockIdx.x) * tile_units);
  const int column_tasks = units + kChunksX - 1;  // vertical steps: tile + halo
  const int x0 = blockIdx.x * 32 * tile_units;
  const int y_first = blockIdx.y * kTileH + 16 * warp;  // the warp's first output row

  in = layer_image(in, in_pitch, height);  // this block's image of a stack, or plane of a planar blur
  out = layer_image(out, out_pitch, height);
  const bool active = y_first < height && units > 0;  // other warps only help build the block's tables
  unsigned char* stages = shared + kTapBytes + kWeightBytes + warp * kWarpShared;
  if (active && kRoundInRow && lane < 8) {  // the rounding row (no copy ever writes it); a __syncwarp follows
#pragma unroll
    for (int s = 0; s < kStages; ++s) {
      *reinterpret_cast<unsigned*>(stages + s * kStageBytes + stage_offset(kRoundRow, lane >> 2) + 4 * (lane & 3)) =
          0x01010101u;
    }
  }
  const int y_top = y_first - kRadiusY;
  const int xv0 = x0 - kPad;  // image byte column of intermediate column 0

  Walk walk{in, in_pitch, width, height, row_bytes, column_tasks, xv0, y_top, lane, l,
            stage_source(in, in_pitch, height, row_bytes, xv0, y_top, lane), nullptr, stages, 0, 0, 0, 0, 0,
            WeightsY{}, TapSource{}, NarrowTaps{},
            output_target(out, out_pitch, in, in_pitch, y_first, x0, height, row_bytes, l),
            StagedLanes{}, {}};
  // The first steps' copies go out before the taps are read (from global memory, a DRAM miss at
  // the kernel's start), so that the two latencies overlap instead of adding up.
  walk.find_edges();
  // Most warps walk without border checks or edges; those of the first and last columns of tiles
  // mostly with only their steps outside the image to fill.
  const int mode = !walk.inside(units) ? kBorderChecks
                   : walk.fill_left < 0 && walk.last_staged == column_tasks - 1 ? kInterior
                                                                                 : kFilledEdges;
  if (active) {
    walk.start();
    if (mode == kInterior) {
      walk.prime<kInterior>();
    } else if (mode == kFilledEdges) {
      walk.prime<kFilledEdges>();
    } else {
      walk.prime<kBorderChecks>();
    }
  }
  walk.taps = kNarrow ? TapSource{} : build_tap_source(shared);
  walk.narrow = kNarrow ? narrow_taps(l) : NarrowTaps{};
  walk.weights = build_weights_y(shared + kTapBytes, l, lane);
  if (kTapBytes + kWeightBytes > 0) __syncthreads();  // the block's tables are complete
  if (!active) return;
  if (mode == kInterior) {
    walk.run<kInterior>();
  } else if (mode == kFilledEdges) {
    walk.run<kFilledEdges>();
  } else {
    walk.run<kBorderChecks>();
  }
}
