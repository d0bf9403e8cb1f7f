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
// A step is about 200 instructions (4K RGB 7 x 7 on the H100: 231 measured before the paired
// planes saved some 30), so the kernel is held by issue and latency more than by memory; what
// keeps it small: the rounding comes from a constant staged row (kRoundInRow), shared memory is
// addressed by lane constants worked out once (opaque), the copies' and the outputs' pointers
// are carried from step to step, the narrow kernel runs its steps in threes so its ring slots
// are constants, and walks wholly inside the image skip the border checks (Walk::run) and take no
// branch inside a three: their copies go out under a predicate, and the two steps that complete
// no window come first, on their own. Its staged pieces are whole sectors (kPad = 32).
//
// The edges cost little more than the interior (a warp's walk is as long as its slowest warp's,
// and edge warps were up to 2x slower; bench/RESULTS.md): rows outside the image are copied from
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
#ifndef GB_COMMON_INCLUDED
#include "common.cuh"
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

constexpr int kTileH = GB_TILE_H;   // output rows per tile: 16 per warp
constexpr int kPad = GB_PAD;        // intermediate columns each side of the tile, >= r * C
constexpr int kWarps = GB_BLOCK_THREADS / 32;
constexpr int kRowsNeeded = 16 + 2 * kRadiusY;           // input rows of one vertical step
constexpr int kChunksY = (kRowsNeeded + 31) / 32;        // k32 steps of the vertical product
constexpr int kCopyRounds = (2 * kRowsNeeded + 31) / 32;  // a step's 16-byte pieces per lane
constexpr int kChunksX = 1 + kPad / 16;                  // k32 steps of the horizontal window
constexpr int kHaloX = kRadiusX * kChannels;
constexpr int kStages = GB_STAGES;                       // input ring: steps in flight
constexpr int kSlotRows = (kRowsNeeded + 15) / 16 * 16;  // the 16-row halves a fragment reads (rows
                                                         // past kRowsNeeded: never written, weight 0)
constexpr int kStageBytes = 32 * kSlotRows;              // 32 bytes per staged row, see stage_offset
// Kernels whose horizontal halo is at most kNarrowLead bytes (7 x 7 up to RGBA) take the narrow
// horizontal product (horizontal_task_narrow): one window chunk per N-tile instead of two. codegen
// gives them a pad of 32, so that every staged piece is a whole 32-byte sector (half the copy
// requests and their shared-memory wavefronts of a pad of 16); a unit's window then spans 3 chunks.
constexpr int kNarrowLead = 12;
constexpr bool kNarrow = kHaloX <= kNarrowLead && kPad == 32;
constexpr int kTinyLead = 4;
constexpr bool kTiny = kNarrow && kHaloX <= kTinyLead;  // the k16 narrow product
// The narrow ring holds the intermediate of the edge's own columns when a step wholly outside the
// image is due, so for the borders that read image columns near the edge (not wrap) such a step is
// filled from them instead of being copied byte by byte and multiplied; for the constant border,
// with the intermediate of a constant column, itself a constant (fill_outside).
constexpr bool kFillOutside = kNarrow && GB_BORDER != gb_border::kWrap;
constexpr int kRing = kChunksX;                          // intermediate chunks: one window
// The narrow product reads a window as one run of columns, so slots 3 and 4 keep copies of
// slots 0 and 1: unit u's window is slots u % 3 .. u % 3 + 2 in order.
constexpr int kPlaneSlots = kRing + (kNarrow ? 2 : 0);
constexpr int kPlaneStride = 32 * kPlaneSlots + 16;      // 16 x odd bytes: ldmatrix rows on distinct banks
constexpr int kPlaneBytes = 16 * kPlaneStride;
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
// spilled it (28 bytes at 7 x 7, 2 to 4 channels; 4K RGBA 4.5% slower). It stores word by word.
constexpr bool kPairedStores = kNarrow && !kConstantBorder;
__host__ __device__ constexpr int plane_row(int r) {
  return kNarrow ? (r & 7) * kPairStride + 4 * (r >> 3) : r * kPlaneStride;
}
__host__ __device__ constexpr int plane_column(int c) { return kNarrow ? 8 * (c >> 2) + (c & 3) : c; }
constexpr int kWarpShared = kStages * kStageBytes + 2 * kPlaneBytes;

// The rounding, for free: where the slot has a row past the kernel's reach (kRowsNeeded <
// kSlotRows), that row holds ones and gets weight 2^7 + 2^15 in every output row, so the
// vertical product yields a + 2^7 + 2^15 and the planes hold m' = m + 2^7 (< 2^16: m <= 65280).
// The horizontal taps sum to 2^16, so m' adds exactly the rounding 2^23 to every b. Only a
// radius whose rows fill the slot (16 + 2r a multiple of 32) adds the constants to the products.
constexpr bool kRoundInRow = kRowsNeeded < kSlotRows;
constexpr int kRoundRow = kSlotRows - 1;
constexpr unsigned kVerticalC = kRoundInRow ? 0u : kVerticalRound;
constexpr unsigned kHorizontalC = kRoundInRow ? 0u : kHorizontalRound;

static_assert(kTileH == 16 * kWarps, "one warp per 16 rows");
static_assert(kPad % 16 == 0 && kHaloX <= kPad, "tile shape");
static_assert((kStages & (kStages - 1)) == 0 && kStages >= 2, "ring index by mask");

// Byte `hi` (0 low, 1 high) of the tap that an input `d` rows below output row 0 gets, or 0.
__host__ __device__ constexpr unsigned tap_byte_y(int d, int hi) {
  return d < 0 || d >= kSizeY ? 0u : (tap_y(d) >> (8 * hi)) & 255u;
}
// The same for an input `delta` bytes right of the output byte: taps are kChannels apart.
__host__ __device__ constexpr unsigned tap_byte_x(int delta, int hi) {
  if (delta % kChannels != 0) return 0u;
  const int i = delta / kChannels + kRadiusX;
  return i < 0 || i >= kSizeX ? 0u : (tap_x(i) >> (8 * hi)) & 255u;
}

// Each tap must split into two bytes; codegen sends a lone tap of 2^16 to the tiled kernel.
__host__ __device__ constexpr bool taps_split_into_bytes() {
  for (int i = 0; i < kSizeX; ++i) {
    if (tap_x(i) > 65535u) return false;
  }
  for (int i = 0; i < kSizeY; ++i) {
    if (tap_y(i) > 65535u) return false;
  }
  return true;
}
static_assert(taps_split_into_bytes(), "a tap of 2^16 has no two-byte split");

// Operand registers hold 4 consecutive k (element e in byte e), so every fragment register is
// a window of 4 consecutive tap bytes: table[i] packs the taps at offsets first + i .. + 3.
template <int kFirst, int kCount>
struct TapWindows {
  unsigned word[2][kCount];  // [low, high byte][offset - kFirst]
};
constexpr int kFirstY = -15;
constexpr int kCountY = 32 * kChunksY - kFirstY;
constexpr int kFirstX = -31 - kPad;
constexpr int kCountX = 63 + 2 * kPad;

template <int kFirst, int kCount>
__host__ __device__ constexpr TapWindows<kFirst, kCount> make_windows(unsigned (*tap_byte)(int, int)) {
  TapWindows<kFirst, kCount> t{};
  for (int hi = 0; hi < 2; ++hi)
    for (int i = 0; i < kCount; ++i)
      for (int e = 0; e < 4; ++e) t.word[hi][i] |= tap_byte(kFirst + i + e, hi) << (8 * e);
  return t;
}
// In global memory (each lane reads its own entries; constant memory would serialise them).
__device__ const TapWindows<kFirstY, kCountY> windows_y = make_windows<kFirstY, kCountY>(tap_byte_y);
__device__ const TapWindows<kFirstX, kCountX> windows_x = make_windows<kFirstX, kCountX>(tap_byte_x);

__device__ __forceinline__ unsigned window_y(int hi, int d) { return __ldg(&windows_y.word[hi][d - kFirstY]); }
__device__ __forceinline__ unsigned window_x(int hi, int delta) { return __ldg(&windows_x.word[hi][delta - kFirstX]); }

// The block's horizontal taps in shared memory. Up to kFragmentChunks window chunks: ready B
// fragments, one uint2 per (chunk c, N-tile j, byte, lane), b0 for k = 4t + e and b1 for
// k = 16 + 4t + e (column n = g is output 8 (g / 2) + 2j + g % 2). Beyond: windows_x itself
// (8 bytes per window column), from which each lane gathers its two words.
constexpr int kFragmentChunks = 5;
constexpr bool kFragmentTable = kChunksX <= kFragmentChunks;
constexpr int kTapFragments = kChunksX * 4 * 2;
constexpr int kTapBytes = kNarrow          ? 0  // the narrow product keeps its taps in registers
                          : kFragmentTable ? kTapFragments * 32 * 8
                                           : (2 * kCountX * 4 + 15) / 16 * 16;
// The vertical weights as A fragments: a0 row g, k = 4t + e; a1 row g + 8; a2, a3: k + 16. Up to
// 4 chunks (radius 56) they stay in registers; more would crowd out the horizontal
// accumulators, so they sit in a block table, one uint4 per (chunk, byte, lane), read once per step.
constexpr bool kWeightsInRegisters = kChunksY <= 4;
constexpr int kWeightBytes = kWeightsInRegisters ? 0 : kChunksY * 2 * 32 * 16;
constexpr int kSharedBytes = kTapBytes + kWeightBytes + kWarps * kWarpShared;
static_assert(kSharedBytes == GB_SHARED_BYTES, "codegen's shared size (mma_shape in codegen.cpp) matches");

// Window column delta(c, j) = 32c - 2j + (the lane's part) - kPad, relative to the output.
struct TapSource {
  const unsigned char* table;
  int lane;        // fragment table: the lane's entry
  int lane_index;  // gathered windows: the lane's word at c = j = 0, as an index into a byte plane
  __device__ __forceinline__ uint2 get(int c, int j, int hi) const {
    if (kFragmentTable) {
      return reinterpret_cast<const uint2*>(table)[((c * 4 + j) * 2 + hi) * 32 + lane];
    }
    const unsigned* words = reinterpret_cast<const unsigned*>(table) + hi * kCountX + lane_index + 32 * c - 2 * j;
    return make_uint2(words[0], words[16]);
  }
};

__device__ __forceinline__ TapSource build_tap_source(unsigned char* table) {
  if (kFragmentTable) {
    uint2* fragments = reinterpret_cast<uint2*>(table);
    for (int i = threadIdx.x; i < kTapFragments * 32; i += GB_BLOCK_THREADS) {
      const int fl = i & 31, hw = (i >> 5) & 1, j = (i >> 6) & 3, c = i >> 8;
      const int g = fl >> 2, t4 = 4 * (fl & 3);
      const int delta = 32 * c + t4 - (8 * (g >> 1) + 2 * j + (g & 1)) - kPad;
      fragments[i] = make_uint2(window_x(hw, delta), window_x(hw, delta + 16));
    }
  } else {
    unsigned* words = reinterpret_cast<unsigned*>(table);
    for (int i = threadIdx.x; i < 2 * kCountX; i += GB_BLOCK_THREADS) words[i] = windows_x.word[i / kCountX][i % kCountX];
  }
  const int lane = threadIdx.x & 31, g = lane >> 2;
  return {table, lane, 4 * (lane & 3) - (8 * (g >> 1) + (g & 1)) - kPad - kFirstX};
}

// d += a (16x32 u8, row-major) x b (32x8 u8, column-major), sums in s32.
__device__ __forceinline__ void mma_u8(unsigned (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  asm("mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};"
      : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
// d = a x b + c for one constant c in every element (0, or a rounding term the product then
// carries for free): one register for all four accumulator inputs.
__device__ __forceinline__ void mma_u8_first(unsigned (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1,
                                             unsigned c = 0u) {
  asm("mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%10,%10,%10,%10};"
      : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1), "r"(c));
}

// The k16 forms: d (+)= a (16x16 u8, a0 row g and a1 row g + 8, k = 4t .. 4t + 3) x b (16x8 u8,
// k = 4t .. 4t + 3, column g).
__device__ __forceinline__ void mma16_u8(unsigned (&d)[4], unsigned a0, unsigned a1, unsigned b) {
  asm("mma.sync.aligned.m16n8k16.row.col.s32.u8.u8.s32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
      : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
      : "r"(a0), "r"(a1), "r"(b));
}
__device__ __forceinline__ void mma16_u8_first(unsigned (&d)[4], unsigned a0, unsigned a1, unsigned b,
                                               unsigned c = 0u) {
  asm("mma.sync.aligned.m16n8k16.row.col.s32.u8.u8.s32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%7,%7,%7};"
      : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
      : "r"(a0), "r"(a1), "r"(b), "r"(c));
}

__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], const unsigned char* p) {
  const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(p));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(address)
               : "memory");
}

// Four 8 x 8 matrices of 16-bit elements, transposed: lane (g, t) gets, of each, the element
// pair of rows 2t and 2t + 1 in column g. `address` is a shared address (lane 8m + j: row j of
// matrix m).
__device__ __forceinline__ void ldmatrix_x4_trans(unsigned (&r)[4], unsigned address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(address)
               : "memory");
}

struct Lane {
  int g;  // lane / 4: the fragment row (A, C) or column (B)
  int t;  // lane % 4: which 4 k's (A, B) or 2 columns (C)
};

// The lane's vertical A fragment of chunk c, byte hi.
__device__ __forceinline__ void weight_fragment(unsigned (&a)[4], int c, int hi, Lane l) {
  const int d = 32 * c + 4 * l.t - l.g;
  const int offsets[4] = {d, d - 8, d + 16, d + 8};
#pragma unroll
  for (int f = 0; f < 4; ++f) a[f] = window_y(hi, offsets[f]);
  if (kRoundInRow && c == kRoundRow / 32) {  // the rounding row's weight: 2^7 + 2^15 (both bytes 2^7)
    constexpr int k = kRoundRow % 32;
    if (l.t == (k % 16) / 4) {
      a[k < 16 ? 0 : 2] |= 128u << (8 * (k % 4));  // rows g and g + 8
      a[k < 16 ? 1 : 3] |= 128u << (8 * (k % 4));
    }
  }
}

struct WeightsY {
  unsigned reg[kWeightsInRegisters ? kChunksY : 1][2][4];
  const uint4* table;  // [chunk][byte][lane]
  int lane;
  __device__ __forceinline__ void get(int c, int hi, unsigned (&a)[4]) const {
    if (kWeightsInRegisters) {
#pragma unroll
      for (int f = 0; f < 4; ++f) a[f] = reg[c][hi][f];
    } else {
      const uint4 v = table[(c * 2 + hi) * 32 + lane];
      a[0] = v.x, a[1] = v.y, a[2] = v.z, a[3] = v.w;
    }
  }
};

// Fills the block's table (all threads; a __syncthreads must follow) or the lane's registers.
__device__ __forceinline__ WeightsY build_weights_y(unsigned char* table, Lane l, int lane) {
  WeightsY w;
  w.table = reinterpret_cast<const uint4*>(table);
  w.lane = lane;
  if (kWeightsInRegisters) {
#pragma unroll
    for (int c = 0; c < (kWeightsInRegisters ? kChunksY : 0); ++c) {
      weight_fragment(w.reg[c][0], c, 0, l);
      weight_fragment(w.reg[c][1], c, 1, l);
    }
  } else {
    for (int i = threadIdx.x; i < kChunksY * 2 * 32; i += GB_BLOCK_THREADS) {
      const int fl = i & 31;
      unsigned a[4];
      weight_fragment(a, i >> 6, (i >> 5) & 1, Lane{fl >> 2, fl & 3});
      reinterpret_cast<uint4*>(table)[i] = make_uint4(a[0], a[1], a[2], a[3]);
    }
  }
  return w;
}

// Shared memory by 32-bit address. The step's addresses are a lane constant plus an immediate,
// worked out once (opaque keeps them in registers): through generic pointers the compiler
// re-derived them, and the shared window's base, every step.
__device__ __forceinline__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void sts32(unsigned address, unsigned v) {
  asm volatile("st.shared.u32 [%0], %1;" ::"r"(address), "r"(v) : "memory");
}
__device__ __forceinline__ uint2 lds64(unsigned address) {
  uint2 v;
  asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];" : "=r"(v.x), "=r"(v.y) : "r"(address) : "memory");
  return v;
}
__device__ __forceinline__ void sts64(unsigned address, unsigned v0, unsigned v1) {
  asm volatile("st.shared.v2.u32 [%0], {%1, %2};" ::"r"(address), "r"(v0), "r"(v1) : "memory");
}
__device__ __forceinline__ void sts128(unsigned address, const unsigned (&v)[4]) {
  asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(address), "r"(v[0]), "r"(v[1]), "r"(v[2]),
               "r"(v[3])
               : "memory");
}
__device__ __forceinline__ unsigned lds8(unsigned address) {
  unsigned v;
  asm volatile("ld.shared.u8 %0, [%1];" : "=r"(v) : "r"(address) : "memory");
  return v;
}
__device__ __forceinline__ void sts8(unsigned address, unsigned v) {
  asm volatile("st.shared.u8 [%0], %1;" ::"r"(address), "r"(v) : "memory");
}
__device__ __forceinline__ void opaque(unsigned& v) { asm volatile("" : "+r"(v)); }
__device__ __forceinline__ void opaque(int& v) { asm volatile("" : "+r"(v)); }

// With kPad an odd multiple of 16 every step's 32-byte row pieces straddle two 32-byte sectors,
// and the next step reads the other half of each: through L1 (.ca) that half is a hit, not a
// second L2 request (the L2's tag lookups were 84% busy). Aligned pieces skip L1 (.cg), which
// measured faster for them. `copy` false: the copy goes out switched off, so that lanes or steps
// without a piece need no branch (branches and their reconvergence held 14% of a step's stall
// samples in the profile of bench/RESULTS.md, fifteenth session).
__device__ __forceinline__ void cp_async16_if(unsigned address, const unsigned char* src, bool copy) {
  if (kPad % 32 != 0) {
    asm volatile(
        "{\n .reg .pred p;\n setp.ne.b32 p, %2, 0;\n @p cp.async.ca.shared.global [%0], [%1], 16;\n}\n" ::"r"(
            address),
        "l"(src), "r"(static_cast<int>(copy))
        : "memory");
  } else {
    asm volatile(
        "{\n .reg .pred p;\n setp.ne.b32 p, %2, 0;\n @p cp.async.cg.shared.global [%0], [%1], 16;\n}\n" ::"r"(
            address),
        "l"(src), "r"(static_cast<int>(copy))
        : "memory");
  }
}
__device__ __forceinline__ void cp_async16(unsigned address, const unsigned char* src) {
  cp_async16_if(address, src, true);
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(kPending) : "memory");
}

// Byte offset of half h (bytes 16h .. 16h + 15) of staged row r in a slot. Rows go in blocks of
// 4 (128 bytes: all 32 banks, as eight 16-byte groups). In block b, row 4b + j sits at position
// j, or (j + 2) % 4 for odd b, with its halves swapped for b % 4 >= 2. A quarter-warp's cp.async
// fills one block; read_step's ldmatrix reads rows {4t, 4t + 1} (t = 0..3) of 16, or rows
// {4t + 2, 4t + 3}, of one half, and each set lies on 8 distinct groups: no bank conflicts.
__host__ __device__ constexpr int stage_offset(int r, int h) {
  return 128 * (r >> 2) + 32 * (((r >> 2) & 1) ? ((r & 3) + 2) & 3 : r & 3) + 16 * (h ^ ((r >> 3) & 1));
}

// Where a warp's input rows come from. Each lane copies one piece of row lane / 2 and, in a
// second round, of row lane / 2 + 16 (kernels whose rows take more rounds: 16 rows further each).
// Rows outside the image are mapped to the rows the border reads (kMappedRows), so only the steps
// whose 32 columns cross or leave the image need the border: steps first_inside .. end_inside - 1
// do not, and there each lane's copies are a fixed pointer plus 32 bytes per step. The constant
// border's rows outside have no source: the lane stores the constant there instead of copying
// (constant_rounds), a store of constants, cheaper than a copy. Worked out once, so a step spends
// two comparisons on it.
constexpr bool kMappedRows = kCopyRounds <= 2;
struct StageSource {
  const unsigned char* lane_src;  // row y_top + lane / 2 (mapped), piece lane % 2, of step 0
  ptrdiff_t second_round;         // from there to the lane's second row (kMappedRows)
  int lane_dst;                   // that piece's offset in a slot
  int first_inside;               // steps first_inside .. end_inside - 1 need no border (empty
  int end_inside;                 // when the rows need it)
  unsigned constant_rounds;       // the constant border (kMappedRows): bit i, round i's row is outside
};

__device__ __forceinline__ StageSource stage_source(const unsigned char* __restrict__ in, int pitch,
                                                    int height, int row_bytes, int xv0, int y_top, int lane) {
  StageSource s;
  const bool rows_inside = kMappedRows || (y_top >= 0 && y_top + kRowsNeeded <= height);
  const int first = y_top + (lane >> 1);
  // A constant-border row outside names row 0, a row the pointer may point into; it is never copied.
  const auto mapped = [height](int r) { return max(border_index(r, height), 0); };
  const int row = kMappedRows ? mapped(first) : rows_inside ? first : 0;
  const int second_row = kMappedRows ? mapped(first + 16) : row + 16;
  s.lane_src = in + static_cast<ptrdiff_t>(row) * pitch + xv0 + 16 * (lane & 1);
  s.second_round = static_cast<ptrdiff_t>(second_row - row) * pitch;
  s.lane_dst = stage_offset(lane >> 1, lane & 1);
  // step s is inside when xv0 + 32 s >= 0 and xv0 + 32 s + 32 <= row_bytes
  s.first_inside = xv0 >= 0 ? 0 : (31 - xv0) >> 5;
  s.end_inside = rows_inside && row_bytes - 32 - xv0 >= 0 ? ((row_bytes - 32 - xv0) >> 5) + 1 : 0;
  s.constant_rounds = kConstantBorder && kMappedRows ? (border_index(first, height) < 0 ? 1u : 0u) |
                                                           (border_index(first + 16, height) < 0 ? 2u : 0u)
                                                     : 0u;
  return s;
}

// Four bytes of a constant-border row from a byte column of channel `phase` on (byte b: the
// value of channel (phase + b) % kChannels). Called with constants only: it is the compiler's.
__host__ __device__ constexpr unsigned constant_word(int phase) {
  constexpr unsigned kValue[4] = GB_BORDER_VALUE;
  unsigned word = 0;
  for (int e = 0; e < 4; ++e) word |= (kValue[(phase + e) % kChannels] & 255u) << (8 * e);
  return word;
}

// The 16 bytes of a constant-border row from byte column xb (a multiple of 16, in the image) on.
// Words of 4 bytes repeat every kChannels bytes: for 1, 2 and 4 channels every word is the same;
// for 3, word k of a piece whose first byte is of channel p is constant_word((p + k) % 3).
__device__ __forceinline__ void constant_piece(int xb, unsigned (&words)[4]) {
#ifdef GB_PLANES
  const unsigned word = constant_border(0) * 0x01010101u;  // the plane's channel's value
#pragma unroll
  for (int k = 0; k < 4; ++k) words[k] = word;
#else
  if (4 % kChannels == 0) {
#pragma unroll
    for (int k = 0; k < 4; ++k) words[k] = constant_word(0);
  } else {
    const int p = xb % kChannels;  // xb >= 0
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const int q = (p + k) % 3;
      words[k] = q == 0 ? constant_word(0) : q == 1 ? constant_word(1) : constant_word(2);
    }
  }
#endif
}

// The 16 bytes from byte column xb of `row`, an edge piece: each byte from the column the border
// maps it to, or the constant border (everywhere when the row itself is outside: constant_row).
// The loads are independent and nothing orders them, so they can all be in flight at once.
__device__ __forceinline__ void edge_piece(const unsigned char* __restrict__ row, bool constant_row, int xb,
                                           int width, unsigned (&words)[4]) {
#pragma unroll
  for (int w = 0; w < 4; ++w) {
    unsigned word = 0;
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      int channel;
      const int sx = source_column(xb + 4 * w + k, width, channel);
      const unsigned v = (kConstantBorder && (constant_row || sx < 0)) ? constant_border(channel) : __ldg(row + sx);
      word |= v << (8 * k);
    }
    words[w] = word;
  }
}

// Copies the input of vertical step `step` into a slot: rows y_top .. y_top + kRowsNeeded - 1,
// byte columns xv .. xv + 31, with the border applied. Whole 16-byte pieces inside the image
// go by cp.async (border rows from the row they map to); pieces crossing or outside the left or
// right edge, and constant-border rows, by loads of single bytes and shared stores.
// `src` is source.lane_src + 32 step, carried by the caller (worked out afresh, it would cost a
// dozen instructions a step).
// `slot` is the slot's shared address and `lane_dst` the lane's piece in it, source.lane_dst + slot.
// kInside: the caller knows every step it stages is inside (Walk::run, kInterior or kFilledEdges);
// then `wanted` says whether the walk copies this step at all (the copies go out switched off
// where not, see cp_async16_if). Other callers pass true.
template <bool kInside>
__device__ __forceinline__ void stage_step(const unsigned char* __restrict__ in, int pitch, int width,
                                           int height, int row_bytes, const StageSource& source,
                                           const unsigned char* src, int xv, int y_top, int step,
                                           unsigned slot, unsigned lane_dst, int lane, bool wanted) {
  if (kInside || (step >= source.first_inside && step < source.end_inside)) {
#pragma unroll
    for (int i = 0; i < kCopyRounds; ++i) {  // rows lane / 2 + 16 i
      const bool piece = 32 * i + lane < 2 * kRowsNeeded;
      // 16 rows further: 4 blocks, the same positions
      if (kConstantBorder && kMappedRows && ((source.constant_rounds >> i) & 1u)) {
        if (piece && wanted) {
          unsigned words[4];
          constant_piece(xv + 16 * (lane & 1), words);
          sts128(lane_dst + 512 * i, words);
        }
      } else {
        cp_async16_if(lane_dst + 512 * i,
                      src + (kMappedRows ? (i == 0 ? 0 : source.second_round) : static_cast<ptrdiff_t>(16 * i) * pitch),
                      piece && wanted);
      }
    }
    cp_async_commit();
    return;
  }
  // A lane copies the same half of every row it copies (q = lane + 32 i). Its pieces crossing or
  // outside the left or right edge, and constant-border rows, are loaded byte by byte, a round's
  // 16 loads before its one shared store (they were 16 dependent load and store pairs): an edge
  // step costs a load latency a round, not one a byte. Two rounds at once spilled at RGB and RGBA.
  const int xb = xv + 16 * (lane & 1);
  const bool piece_inside = xb >= 0 && xb + 16 <= row_bytes;
#pragma unroll 1
  for (int i = 0; i < kCopyRounds; ++i) {
    const int q = lane + 32 * i;
    if (q >= 2 * kRowsNeeded) break;
    const int sy = border_index(y_top + (q >> 1), height);
    const unsigned at = slot + stage_offset(q >> 1, q & 1);
    if (sy >= 0 && piece_inside) {
      cp_async16(at, in + static_cast<size_t>(sy) * pitch + xb);
    } else {
      unsigned words[4];
      edge_piece(in + static_cast<size_t>(sy < 0 ? 0 : sy) * pitch, sy < 0, xb, width, words);
      sts128(at, words);
    }
  }
  cp_async_commit();
}

// The B words one lane feeds the vertical product: w[c][h][i] for N-tile i holds input rows
// 32c + 16h + 4t + e of the step (byte e), byte column 16 (i / 2) + 2g + i % 2. Rows past the
// kernel's reach are zero (their taps are 0).
struct TaskWords {
  unsigned w[kChunksY][2][4];
};

// The lane's ldmatrix row in slot 0: matrix m = lane / 8 is rows {4t, 4t + 1} (m even) or
// {4t + 2, 4t + 3} (m odd) of the first 16, half m / 2; its row j is row 4 (j / 2) + j % 2 (+ 2).
// The other halves of 16 rows are 512 bytes on (stage_offset), the other slots kStageBytes.
__device__ __forceinline__ unsigned read_lane(unsigned stages, int lane) {
  const int m = lane >> 3, j = lane & 7;
  unsigned at = stages + stage_offset(4 * (j >> 1) + (j & 1) + 2 * (m & 1), m >> 1);
  opaque(at);
  return at;
}

// Each ldmatrix gives the lane rows 4t, 4t + 1 (r[0], half 0; r[2], half 1) and 4t + 2, 4t + 3
// (r[1], r[3]) in bytes 2g and 2g + 1: one byte permute makes a B word of 4 rows.
__device__ __forceinline__ TaskWords read_step(unsigned lane_at, unsigned slot_offset) {
  TaskWords tw;
#pragma unroll
  for (int c = 0; c < kChunksY; ++c) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      if (32 * c + 16 * h < kSlotRows) {
        unsigned r[4];
        ldmatrix_x4_trans(r, lane_at + slot_offset + 512 * (2 * c + h));
        tw.w[c][h][0] = __byte_perm(r[0], r[1], 0x6420);
        tw.w[c][h][1] = __byte_perm(r[0], r[1], 0x7531);
        tw.w[c][h][2] = __byte_perm(r[2], r[3], 0x6420);
        tw.w[c][h][3] = __byte_perm(r[2], r[3], 0x7531);
      } else {  // a half wholly past the kernel's reach
#pragma unroll
        for (int i = 0; i < 4; ++i) tw.w[c][h][i] = 0u;
      }
    }
  }
  return tw;
}

// Vertical product of one task, stored as the low and high byte planes of m = (a + 2^7) >> 8.
// The lane's results are rows g and g + 8, byte columns 4t .. 4t + 3 and 16 + 4t .. 19 + 4t of
// the task, at `slot` in the planes (plane_column of the slot's first column), and also at
// `copy_slot` where it is not negative (the narrow ring's copies).
// store_lane: the shared address of the lane's word (row g, word t) in the low plane's slot 0.
__device__ __forceinline__ void vertical_task(TaskWords tw, const WeightsY& weights, unsigned store_lane,
                                              int slot, int copy_slot) {
  unsigned acc_lo[4][4], acc_hi[4][4];  // [byte i of the lane's word column][fragment]
#pragma unroll
  for (int c = 0; c < kChunksY; ++c) {
    unsigned w_lo[4], w_hi[4];
    weights.get(c, 0, w_lo);
    weights.get(c, 1, w_hi);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      if (c == 0) {
        // 2^7 + sum < 2^24 (common.cuh): the rounding rides in the low product
        mma_u8_first(acc_lo[i], w_lo, tw.w[c][0][i], tw.w[c][1][i], kVerticalC);
        mma_u8_first(acc_hi[i], w_hi, tw.w[c][0][i], tw.w[c][1][i]);
      } else {
        mma_u8(acc_lo[i], w_lo, tw.w[c][0][i], tw.w[c][1][i]);
        mma_u8(acc_hi[i], w_hi, tw.w[c][0][i], tw.w[c][1][i]);
      }
    }
  }
  // N-tile i, fragment f: row g (f < 2) or g + 8, B column 2t + (f & 1), which is byte column
  // 16 (i / 2) + 4t + 2 (f & 1) + i % 2 of the task: word n of the lane's row is N-tiles 2n, 2n + 1.
#pragma unroll
  for (int n = 0; n < 2; ++n) {
    unsigned lo[2], hi[2];  // [half: row g, g + 8]
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      unsigned a[4];  // byte k of word n: N-tile 2n + k % 2, fragment 2 half + k / 2
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        const int i = 2 * n + (k & 1), f = 2 * half + (k >> 1);
        a[k] = acc_hi[i][f] * 256u + acc_lo[i][f];  // rounding already in; < 2^24
      }
      const unsigned x = __byte_perm(a[0], a[1], 0x6251);  // m's low and high bytes: bytes 1, 2
      const unsigned y = __byte_perm(a[2], a[3], 0x6251);
      lo[half] = __byte_perm(x, y, 0x5410);
      hi[half] = __byte_perm(x, y, 0x7632);
    }
    // Paired rows (kPairedStores): both rows' words at once. Else (row by row) lanes g = 0..7 are
    // kPlaneStride = 16 x odd bytes apart, or kPairStride, t = 0..3 one word: 32 banks.
    const auto store = [&](unsigned at) {
      at += plane_column(16 * n);
      if (kPairedStores) {
        sts64(at, lo[0], lo[1]);
        sts64(at + kPlaneBytes, hi[0], hi[1]);
      } else {
#pragma unroll
        for (int half = 0; half < 2; ++half) {
          sts32(at + plane_row(8 * half), lo[half]);
          sts32(at + kPlaneBytes + plane_row(8 * half), hi[half]);
        }
      }
    };
    store(store_lane + slot);
    if (copy_slot >= 0) store(store_lane + copy_slot);
  }
}

// Where a warp's outputs go. lane_out is the lane's first output byte of the current unit (row
// y_first + g, byte x0 + 32 unit + 8t): the caller carries it, 32 bytes a unit. Units below
// units_inside have all 16 rows and 32 bytes in the image: two 8-byte stores and no checks.
struct OutputTarget {
  unsigned char* __restrict__ out;
  int pitch, y_first, x0, height, row_bytes;
  int units_inside;  // 0 when the warp's rows reach past the image
  unsigned char* lane_out;
};

__device__ __forceinline__ OutputTarget output_target(unsigned char* __restrict__ out, int pitch, int y_first,
                                                      int x0, int height, int row_bytes, Lane l) {
  OutputTarget o{out, pitch, y_first, x0, height, row_bytes, 0, nullptr};
  o.units_inside = y_first + 16 <= height && row_bytes - x0 >= 32 ? (row_bytes - x0) >> 5 : 0;
  o.lane_out = out + static_cast<ptrdiff_t>(y_first + l.g) * pitch + x0 + 8 * l.t;
  return o;
}

// lane_out goes through opaque(), after which the compiler no longer knows it points to global
// memory and would use generic stores.
__device__ __forceinline__ void store_global8(unsigned char* p, unsigned w0, unsigned w1) {
  asm volatile("st.global.v2.u32 [%0], {%1, %2};" ::"l"(__cvta_generic_to_global(p)), "r"(w0), "r"(w1) : "memory");
}

// Writes the lane's outputs of a unit: rows g and g + 8, bytes 8t .. 8t + 7. kInside: the caller
// knows every unit of the walk is inside.
template <bool kInside>
__device__ __forceinline__ void store_outputs(const unsigned (&result)[2][2], Lane l, const OutputTarget& o,
                                              int unit) {
  if (kInside || unit < o.units_inside) {
    store_global8(o.lane_out, result[0][0], result[0][1]);
    store_global8(o.lane_out + 8 * static_cast<ptrdiff_t>(o.pitch), result[1][0], result[1][1]);
    return;
  }
  if constexpr (!kInside) {  // (compiled only where it can run: NVRTC warns of unreachable code)
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int y = o.y_first + l.g + 8 * half;
      const int x = o.x0 + 32 * unit + 8 * l.t;
      if (y >= o.height || x >= o.row_bytes) continue;
      unsigned char* dst = o.out + static_cast<size_t>(y) * o.pitch + x;
      const unsigned w0 = result[half][0], w1 = result[half][1];
      if (x + 8 <= o.row_bytes) {
        *reinterpret_cast<uint2*>(dst) = make_uint2(w0, w1);
      } else {
        for (int s = 0; s < 8 && x + s < o.row_bytes; ++s) {
          dst[s] = static_cast<unsigned char>((s < 4 ? w0 : w1) >> (8 * (s % 4)));
        }
      }
    }
  }
}

// Output byte of b (byte 3, the rounding 2^23 was added first) for 4 results -> one word.
__device__ __forceinline__ unsigned pack_top_bytes(unsigned b0, unsigned b1, unsigned b2, unsigned b3) {
  return __byte_perm(__byte_perm(b0, b1, 0x0073), __byte_perm(b2, b3, 0x0073), 0x5410);
}

// Horizontal product for 16 rows x 32 outputs starting at intermediate column u0 (the window
// is columns u0 .. u0 + 32 kChunksX). N-tile j's column n is output 8 (n / 2) + 2j + n % 2,
// so the lane's results for a row are its 8 consecutive outputs 8t .. 8t + 7. Under a tight
// register budget (4+ blocks per SM) the 4 N-tiles go in 2 passes, each reloading the window;
// otherwise in one, each window chunk loaded once.
constexpr int kPasses = GB_MIN_BLOCKS >= 4 ? 2 : 1;
constexpr int kTilesPerPass = 4 / kPasses;
template <bool kInside>
__device__ __forceinline__ void horizontal_task(const unsigned char* plane_lo, const unsigned char* plane_hi,
                                                const TapSource& taps, int unit, Lane l, int lane,
                                                const OutputTarget& target) {
  const int row_offset = (lane & 15) * kPlaneStride + (lane >> 4) * 16;
  unsigned result[2][2];  // [row half][word]: the lane's 8 packed output bytes of a row
#pragma unroll
  for (int jp = 0; jp < kPasses; ++jp) {  // N-tiles kTilesPerPass jp, ...
    unsigned ll[kTilesPerPass][4], mid[kTilesPerPass][4], hh[kTilesPerPass][4];
#pragma unroll
    for (int c = 0; c < kChunksX; ++c) {
      unsigned m_lo[4], m_hi[4];
      const int slot = 32 * ((unit + c) % kRing);  // the window's chunk c
      ldmatrix_x4(m_lo, plane_lo + row_offset + slot);
      ldmatrix_x4(m_hi, plane_hi + row_offset + slot);
#pragma unroll
      for (int jj = 0; jj < kTilesPerPass; ++jj) {
        const int j = kTilesPerPass * jp + jj;
        const uint2 q_lo = taps.get(c, j, 0);
        const uint2 q_hi = taps.get(c, j, 1);
        if (c == 0) {
          mma_u8_first(ll[jj], m_lo, q_lo.x, q_lo.y, kHorizontalC);  // 2^23 + sum < 2^31
          mma_u8_first(mid[jj], m_lo, q_hi.x, q_hi.y);
          mma_u8_first(hh[jj], m_hi, q_hi.x, q_hi.y);
        } else {
          mma_u8(ll[jj], m_lo, q_lo.x, q_lo.y);
          mma_u8(mid[jj], m_lo, q_hi.x, q_hi.y);
          mma_u8(hh[jj], m_hi, q_hi.x, q_hi.y);
        }
        mma_u8(mid[jj], m_hi, q_lo.x, q_lo.y);
      }
    }
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      unsigned b[kTilesPerPass][2];
#pragma unroll
      for (int jj = 0; jj < kTilesPerPass; ++jj) {
#pragma unroll
        for (int n = 0; n < 2; ++n) {
          const int f = 2 * half + n;
          b[jj][n] = hh[jj][f] * 65536u + mid[jj][f] * 256u + ll[jj][f];  // rounding already in; mod 2^32, exact
        }
      }
#pragma unroll
      for (int w = 0; w < kTilesPerPass / 2; ++w) {  // N-tiles 2w', 2w' + 1 give outputs 8t + 4w' ..
        result[half][jp * kTilesPerPass / 2 + w] = pack_top_bytes(b[2 * w][0], b[2 * w][1], b[2 * w + 1][0], b[2 * w + 1][1]);
      }
    }
  }
  store_outputs<kInside>(result, l, target, unit);
}

// The narrow horizontal product (kNarrow). N-tile j holds outputs 8j .. 8j + 7 of the unit,
// which need the 8 + 2 kHaloX <= 32 window columns from 8j - kNarrowLead on: one k32 chunk, and
// the same band of taps for every j, so the B fragments stay in 4 registers. Half the products
// of horizontal_task, and no tap loads. The window starts at 4-byte offsets, which ldmatrix
// cannot address, so A comes in 32-bit loads (lanes g on 16 x odd byte rows, t one word apart:
// no bank conflicts).
struct NarrowTaps {
  unsigned b[2][2];  // [low, high byte][b0, b1]
};
__device__ __forceinline__ NarrowTaps narrow_taps(Lane l) {
  // b0: k = 4t + e, n = g: window column k - lead is input delta k - lead - n; b1: k + 16 (k32 only).
  const int d = 4 * l.t - (kTiny ? kTinyLead : kNarrowLead) - l.g;
  NarrowTaps taps;
#pragma unroll
  for (int hi = 0; hi < 2; ++hi) taps.b[hi][0] = window_x(hi, d), taps.b[hi][1] = window_x(hi, d + 16);
  return taps;
}

// Lane t of each quad holds w[j] for j = 0..3; afterwards it holds lane j's w[t]. Step b swaps
// bit b of (lane, index) wherever the two differ: the lane sends its two such words and takes
// its partner's in their place.
__device__ __forceinline__ void quad_transpose(unsigned (&w)[4], int t) {
  const bool t0 = (t & 1) != 0, t1 = (t & 2) != 0;
#pragma unroll
  for (int k = 0; k < 2; ++k) {  // bit 0: indices 2k + 1 - t0
    const unsigned got = __shfl_xor_sync(0xffffffffu, t0 ? w[2 * k] : w[2 * k + 1], 1);
    if (t0) {
      w[2 * k] = got;
    } else {
      w[2 * k + 1] = got;
    }
  }
#pragma unroll
  for (int k = 0; k < 2; ++k) {  // bit 1: indices k + 2 (1 - t1)
    const unsigned got = __shfl_xor_sync(0xffffffffu, t1 ? w[k] : w[k + 2], 2);
    if (t1) {
      w[k] = got;
    } else {
      w[k + 2] = got;
    }
  }
}

// The output byte of b = 2^16 hh + 2^8 mid + ll (the rounding already in; mod 2^32, exact) for
// the four results of an N-tile: bytes of row g (outputs 2t, 2t + 1), then of row g + 8.
__device__ __forceinline__ unsigned narrow_outputs(const unsigned (&ll)[4], const unsigned (&mid)[4],
                                                   const unsigned (&hh)[4]) {
  unsigned b[4];
#pragma unroll
  for (int f = 0; f < 4; ++f) b[f] = hh[f] * 65536u + mid[f] * 256u + ll[f];
  return pack_top_bytes(b[0], b[1], b[2], b[3]);
}

// Both rows' words (g, g + 8) of a plane at window byte 4t + c (c a multiple of 4) from `first`,
// the lane's word of the low plane (row g, window byte 4t): paired rows, one load.
__device__ __forceinline__ uint2 window_pair(unsigned first, int plane, int c) {
  return lds64(first + plane * kPlaneBytes + plane_column(c));
}

// The k32 form, N-tiles kFirstTile .. kEndTile - 1. N-tile j's window is bytes 8j - kNarrowLead
// .. + 31 of the unit's outputs. lane_offset: the shared address of the lane's first word (row g,
// window byte 4t). N-tile j + 2's a0 and a1 are N-tile j's a2 and a3, but loading them again costs
// less than the moves that would build its fragment from them.
template <int kFirstTile, int kEndTile>
__device__ __forceinline__ void narrow_tiles_k32(unsigned lane_offset, const NarrowTaps& taps, unsigned (&w)[4]) {
#pragma unroll
  for (int j = kFirstTile; j < kEndTile; ++j) {
    // a0: row g, k = 4t..; a1: row g + 8; a2, a3: k + 16
    const uint2 lo01 = window_pair(lane_offset, 0, 8 * j), lo23 = window_pair(lane_offset, 0, 8 * j + 16);
    const uint2 hi01 = window_pair(lane_offset, 1, 8 * j), hi23 = window_pair(lane_offset, 1, 8 * j + 16);
    const unsigned m_lo[4] = {lo01.x, lo01.y, lo23.x, lo23.y};
    const unsigned m_hi[4] = {hi01.x, hi01.y, hi23.x, hi23.y};
    unsigned ll[4], mid[4], hh[4];
    mma_u8_first(ll, m_lo, taps.b[0][0], taps.b[0][1], kHorizontalC);
    mma_u8_first(mid, m_lo, taps.b[1][0], taps.b[1][1]);
    mma_u8(mid, m_hi, taps.b[0][0], taps.b[0][1]);
    mma_u8_first(hh, m_hi, taps.b[1][0], taps.b[1][1]);
    w[j] = narrow_outputs(ll, mid, hh);
  }
}

// The k16 form (kTiny), N-tiles kFirstTile .. kEndTile - 1. N-tile j's window is bytes 8j -
// kTinyLead .. + 15 of the unit's outputs: a lane loads one pair of rows of each plane per N-tile,
// its whole A fragment.
template <int kFirstTile, int kEndTile>
__device__ __forceinline__ void narrow_tiles_k16(unsigned lane_offset, const NarrowTaps& taps, unsigned (&w)[4]) {
#pragma unroll
  for (int j = kFirstTile; j < kEndTile; ++j) {
    const uint2 lo = window_pair(lane_offset, 0, kNarrowLead - kTinyLead + 8 * j);  // a0: row g, a1: g + 8
    const uint2 hi = window_pair(lane_offset, 1, kNarrowLead - kTinyLead + 8 * j);
    unsigned ll[4], mid[4], hh[4];
    mma16_u8_first(ll, lo.x, lo.y, taps.b[0][0], kHorizontalC);
    mma16_u8_first(mid, lo.x, lo.y, taps.b[1][0]);
    mma16_u8(mid, hi.x, hi.y, taps.b[0][0]);
    mma16_u8_first(hh, hi.x, hi.y, taps.b[1][0]);
    w[j] = narrow_outputs(ll, mid, hh);
  }
}

// Unit u's outputs are intermediate columns 32u + 32 .. 32u + 63 (kPad = 32), its window 32u + 20
// .. 32u + 75 (k16: 32u + 28 .. 32u + 67), in plane slots u % 3 .. u % 3 + 2 (kSlot: u % 3, known
// where the caller runs steps in threes). The unit is due at step u + 2, whose vertical product
// gives columns 32u + 64 on: the windows of N-tiles 0 and 1 (k32; 0 to 2 for k16) end at 32u + 59,
// before them, so the step multiplies those first, before its copies and its vertical product,
// as independent work beside that product's chain of latencies, and the rest after it
// (horizontal_task_narrow). Measured (bench/RESULTS.md, thirteenth session): 4K RGB 7 x 7 1-2%
// faster; the k16 form's three early N-tiles made 4K gray 2-3% slower, so it takes none.
constexpr int kEarlyTiles = kTiny ? 0 : 2;
// N-tiles kFirstTile .. kEndTile - 1 of the unit whose window starts in slot kSlot. load_lane: the
// shared address of the lane's first word (row g, window byte 4t) of a unit whose window starts in
// the low plane's slot 0.
template <int kSlot, int kFirstTile, int kEndTile>
__device__ __forceinline__ void narrow_tiles(unsigned load_lane, const NarrowTaps& taps, unsigned (&w)[4]) {
  if (kTiny) {
    narrow_tiles_k16<kFirstTile, kEndTile>(load_lane + plane_column(32 * kSlot), taps, w);
  } else {
    narrow_tiles_k32<kFirstTile, kEndTile>(load_lane + plane_column(32 * kSlot), taps, w);
  }
}

// The rest of a unit's N-tiles, once its window is complete, and its outputs. w[0 .. kEarlyTiles
// - 1]: the early N-tiles' results (j: bytes of row g, outputs 8j + 2t, + 1, then of row g + 8).
template <int kSlot, bool kInside>
__device__ __forceinline__ void horizontal_task_narrow(unsigned load_lane, const NarrowTaps& taps, unsigned (&w)[4],
                                                       int unit, Lane l, const OutputTarget& target) {
  narrow_tiles<kSlot, kEarlyTiles, 4>(load_lane, taps, w);
  quad_transpose(w, l.t);  // w[t'] now: N-tile t, outputs 8t + 2t', + 1
  unsigned result[2][2];
  result[0][0] = __byte_perm(w[0], w[1], 0x5410);
  result[0][1] = __byte_perm(w[2], w[3], 0x5410);
  result[1][0] = __byte_perm(w[0], w[1], 0x7632);
  result[1][1] = __byte_perm(w[2], w[3], 0x7632);
  store_outputs<kInside>(result, l, target, unit);
}

// Hides a value's origin from the compiler, so that a pointer carried from step to step stays
// in its register instead of being worked out again from the kernel's parameters every step.
template <typename T>
__device__ __forceinline__ void opaque(T*& p) {
  asm volatile("" : "+l"(p));
}

// How a walk runs (its steps' template argument): with every border check; with its copied steps
// all inside the image and kFillOutside's steps filled from the edge; or wholly inside, neither.
constexpr int kBorderChecks = 0, kFilledEdges = 1, kInterior = 2;
// Whether a step completes a unit's window: known to the caller, or checked (Walk::step).
constexpr int kNever = 0, kAlways = 1, kMaybe = 2;

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
  // The constant border's columns outside are the constant v in every row, and the taps sum to
  // 2^16, so their intermediate is m = 256 v (+ 2^7 where the rounding rides in a row): a low
  // byte of 0 (or 128) and a high byte of v.
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
                           : lane >= 16     ? constant_border(channel)
                                            : (kRoundInRow ? kVerticalRound : 0u);
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
    if constexpr (kDue != kNever) {  // not even compiled where no unit is due (compile time)
      if (kNarrow && due) narrow_tiles<kUnitSlot, 0, kEarlyTiles>(load_lane, narrow, w);
    }
    stage<kMode>(task + kStages - 1);  // its slot was read one step ago, before the last __syncwarp
    cp_async_wait<kStages - 1>();  // this step's copies are kStages - 1 groups back
    __syncwarp();
    const TaskWords tw = read_step(reads, (task & (kStages - 1)) * kStageBytes);
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
        horizontal_task_narrow<kUnitSlot, kMode != kBorderChecks>(load_lane, narrow, w, unit, l, target);
      } else {
        unsigned char* plane_lo = stages + kStages * kStageBytes;
        horizontal_task<kMode != kBorderChecks>(plane_lo, plane_lo + kPlaneBytes, taps, unit, l, lane, target);
      }
      target.lane_out += 32;
      opaque(target.lane_out);
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
            WeightsY{}, TapSource{}, NarrowTaps{}, output_target(out, out_pitch, y_first, x0, height, row_bytes, l)};
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
