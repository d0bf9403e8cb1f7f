// mma_layout.cuh — the tensor-core kernel's constants for this instance (its prelude's radius,
// channels, pad, stages and warps through mma_geometry.cuh, the one definition codegen shares),
// the layout of its shared memory (staged input slots, intermediate planes), and a lane's place
// in a fragment. blur_mma.cu says how the pieces fit together.
#ifndef GB_MMA_LAYOUT_INCLUDED
#define GB_MMA_LAYOUT_INCLUDED 1
#ifndef GB_COMMON_INCLUDED
#include "common.cuh"
#endif
#ifndef GB_MMA_GEOMETRY_INCLUDED
#include "mma_geometry.cuh"
#endif
#ifndef GB_MMA_LANES_INCLUDED
#include "mma_lanes.cuh"
#endif

#ifndef GB_TILE_W
#define GB_TILE_W 480
#define GB_TILE_H 64
#define GB_BLOCK_THREADS 128
#define GB_PAD 16
#define GB_MIN_BLOCKS 6
#define GB_STAGES 4
#define GB_SHARED_BYTES 32768
#endif

namespace gb {

constexpr int kTileH = GB_TILE_H;  // output rows per tile: 16 per warp
constexpr int kPad = GB_PAD;       // intermediate columns each side of the tile, >= r * C
constexpr int kWarps = GB_BLOCK_THREADS / 32;
constexpr int kHaloX = kRadiusX * kChannels;
constexpr int kStages = GB_STAGES;  // input ring: steps in flight
constexpr gb_mma::Geometry kGeometry{kRadiusY, kHaloX, kPad, kStages};
constexpr int kRowsNeeded = kGeometry.rows_needed();  // input rows of one vertical step
constexpr int kChunksY = kGeometry.chunks_y();        // k32 steps of the vertical product
constexpr int kCopyRounds = kGeometry.copy_rounds();  // a step's 16-byte pieces per lane
constexpr int kChunksX = kGeometry.chunks_x();        // k32 steps of the horizontal window
// The 16-row halves a fragment reads (rows past kRowsNeeded are never copied; their taps are 0).
constexpr int kSlotRows = kGeometry.slot_rows();
constexpr int kStageBytes = kGeometry.stage_bytes();  // 32 bytes per staged row, see stage_offset
// Kernels whose horizontal halo is at most kNarrowLead bytes (7 x 7 up to RGBA) take the narrow
// horizontal product (horizontal_task_narrow): one window chunk per N-tile instead of two. codegen
// gives them a pad of 32, so that every staged piece is a whole 32-byte sector (half the copy
// requests and their shared-memory wavefronts of a pad of 16); a unit's window then spans 3 chunks.
constexpr int kNarrowLead = gb_mma::kNarrowLead;
constexpr bool kNarrow = kGeometry.narrow();
constexpr int kTinyLead = gb_mma::kTinyLead;
constexpr bool kTiny = kGeometry.tiny();  // the k16 narrow product
// The narrow ring holds the intermediate of the edge's own columns when a step wholly outside the
// image is due, so for the borders that read image columns near the edge (not wrap) such a step is
// filled from them instead of being copied byte by byte and multiplied; for the constant border,
// with the intermediate of a constant column, itself a constant (fill_outside).
constexpr bool kFillOutside = kNarrow && GB_BORDER != gb_border::kWrap;
constexpr int kRing = kChunksX;  // intermediate chunks: one window
// The narrow product reads a window as one run of columns, so slots 3 and 4 keep copies of
// slots 0 and 1: unit u's window is slots u % 3 .. u % 3 + 2 in order.
constexpr int kPlaneSlots = kGeometry.plane_slots();
constexpr int kPlaneStride =
    kGeometry.plane_stride();  // 16 x odd bytes: ldmatrix rows on distinct banks
constexpr int kPlaneBytes = kGeometry.plane_bytes();
// The narrow product's planes pair rows g and g + 8 word by word, so that one 64-bit access moves
// a lane's word of both rows: the vertical product stores a lane's results, and the horizontal
// one loads each half of an A fragment (a0 a1, a2 a3), in one instruction, without register moves
// (24 loads and 16 moves a step became 16 loads). A pair takes kPairStride = 32 x odd bytes, so
// lanes g = 0..3 fall on distinct quarters of the banks and t = 0..3 on distinct 8-byte words of
// each: no 64-bit access of a step conflicts. The other kernels' planes are row after row, the
// 16-byte rows their ldmatrix reads. The byte of row r, column c: plane_row(r) + plane_column(c),
// and for columns that are multiples of 4, plane_column is additive.
constexpr int kPairStride = 2 * kPlaneStride;
// The vertical product stores both rows' words at once too, except in the constant border's
// kernel: it runs at the register limit, and the aligned register pair a 64-bit store takes
// spilled it, which measured slower. It stores word by word.
constexpr bool kPairedStores = kNarrow && !kConstantBorder;
__host__ __device__ constexpr int plane_row(int r) {
  return kNarrow ? (r & 7) * kPairStride + 4 * (r >> 3) : r * kPlaneStride;
}
__host__ __device__ constexpr int plane_column(int c) {
  return kNarrow ? 8 * (c >> 2) + (c & 3) : c;
}
constexpr int kWarpShared = kGeometry.warp_bytes();

// A convolution matrix of rank one (GB_EXACT_SUMS; arithmetic.cuh's Matrix8): its column is the
// vertical taps and its row the horizontal ones, integers, signed where any is negative; its sums
// are exact, the intermediate is the vertical sum itself (16 bits, not rounded), and the output is
// Matrix8's finish of the exact horizontal sum (mma_finish.cuh). Nothing rounds in the products.
#ifdef GB_EXACT_SUMS
constexpr bool kExactSums = true;
#else
constexpr bool kExactSums = false;
#endif

// Whether an axis has a negative tap: the high bytes of its taps are then signed operands (s8,
// low bytes u8: q = 256 s8 + u8 for -2^15 <= q < 2^15), and a negative vertical tap makes the
// intermediate signed too (kSignedMid: its high byte s8).
__host__ __device__ constexpr bool any_negative_x() {
  for (int i = 0; i < kSizeX; ++i) {
    if (static_cast<long long>(tap_x(i)) < 0) return true;
  }
  return false;
}
__host__ __device__ constexpr bool any_negative_y() {
  for (int i = 0; i < kSizeY; ++i) {
    if (static_cast<long long>(tap_y(i)) < 0) return true;
  }
  return false;
}
constexpr bool kSignedX = any_negative_x();
constexpr bool kSignedY = any_negative_y();
constexpr bool kSignedMid = kSignedY;
// Whether any tap has a high byte. Where none does (a matrix of rank one whose taps are all 0..255:
// a box, a small binomial), every product with the taps' high bytes is 0 and is not made: the
// vertical pass takes one product, the horizontal two (mma_products.cuh). A Gaussian's taps, which
// sum to 2^16 with at most 255 of them, always have one.
__host__ __device__ constexpr bool any_high_byte_x() {
  for (int i = 0; i < kSizeX; ++i) {
    const long long q = static_cast<long long>(tap_x(i));
    if (q < 0 || q > 255) return true;
  }
  return false;
}
__host__ __device__ constexpr bool any_high_byte_y() {
  for (int i = 0; i < kSizeY; ++i) {
    const long long q = static_cast<long long>(tap_y(i));
    if (q < 0 || q > 255) return true;
  }
  return false;
}
constexpr bool kHighX = any_high_byte_x();
constexpr bool kHighY = any_high_byte_y();
// The vertical taps' sum: the intermediate of a column of one value v is v times it.
__host__ __device__ constexpr long long tap_sum_y() {
  long long sum = 0;
  for (int i = 0; i < kSizeY; ++i) sum += static_cast<long long>(tap_y(i));
  return sum;
}

// The rounding, for free: where the slot has a row past the kernel's reach (kRowsNeeded <
// kSlotRows), that row holds ones and gets weight 2^7 + 2^15 in every output row, so the
// vertical product yields a + 2^7 + 2^15 and the planes hold m' = m + 2^7 (< 2^16: m <= 65280).
// The horizontal taps sum to 2^16, so m' adds exactly the rounding 2^23 to every b. Only a
// radius whose rows fill the slot (16 + 2r a multiple of 32) adds the constants to the products.
// Exact sums take neither.
constexpr bool kRoundInRow = !kExactSums && kRowsNeeded < kSlotRows;
constexpr int kRoundRow = kSlotRows - 1;
constexpr unsigned kVerticalC = kExactSums || kRoundInRow ? 0u : kVerticalRound;
constexpr unsigned kHorizontalC = kExactSums || kRoundInRow ? 0u : kHorizontalRound;

static_assert(kTileH == 16 * kWarps, "one warp per 16 rows");
static_assert(kPad % 16 == 0 && kHaloX <= kPad, "tile shape");
static_assert((kStages & (kStages - 1)) == 0 && kStages >= 2, "ring index by mask");

// The block's horizontal taps in shared memory (mma_taps.cuh). Up to kFragmentChunks window
// chunks: ready B fragments, one uint2 per (chunk c, N-tile j, byte, lane). Beyond: the tap
// windows themselves (8 bytes per window column), from which each lane gathers its two words.
constexpr bool kFragmentTable = kGeometry.fragment_table();
constexpr int kTapFragments = kGeometry.tap_fragments();
constexpr int kTapBytes =
    kGeometry.tap_bytes();  // 0 for the narrow product: its taps are in registers
// The vertical weights as A fragments: up to 4 chunks (radius 56) they stay in registers; more
// would crowd out the horizontal accumulators, so they sit in a block table, one uint4 per
// (chunk, byte, lane), read once per step.
constexpr bool kWeightsInRegisters = kGeometry.weights_in_registers();
constexpr int kWeightBytes = kGeometry.weight_bytes();
constexpr int kSharedBytes = kGeometry.shared_bytes(kWarps);
static_assert(kSharedBytes == GB_SHARED_BYTES, "the launch gives the shared memory codegen sized");

// Byte offset of half h (bytes 16h .. 16h + 15) of staged row r in a slot. Rows go in blocks of
// 4 (128 bytes: all 32 banks, as eight 16-byte groups). In block b, row 4b + j sits at position
// j, or (j + 2) % 4 for odd b, with its halves swapped for b % 4 >= 2. A quarter-warp's cp.async
// fills one block; read_step's ldmatrix reads rows {4t, 4t + 1} (t = 0..3) of 16, or rows
// {4t + 2, 4t + 3}, of one half, and each set lies on 8 distinct groups: no bank conflicts.
__host__ __device__ constexpr int stage_offset(int r, int h) {
  return 128 * (r >> 2) + 32 * (((r >> 2) & 1) ? ((r & 3) + 2) & 3 : r & 3) +
         16 * (h ^ ((r >> 3) & 1));
}

}  // namespace gb

#endif  // GB_MMA_LAYOUT_INCLUDED
