// mma_stage.cuh — a warp's input: where each step's rows come from (border rows mapped once),
// their copy into the ring of shared slots (cp.async inside the image, byte loads at its edges,
// stores of the constant border), and the vertical product's B words read back from a slot.
#ifndef GB_MMA_STAGE_INCLUDED
#define GB_MMA_STAGE_INCLUDED 1
#ifndef GB_MMA_LAYOUT_INCLUDED
#include "mma_layout.cuh"
#endif
#ifndef GB_MMA_PTX_INCLUDED
#include "mma_ptx.cuh"
#endif

namespace gb {

// With kPad an odd multiple of 16 every step's 32-byte row pieces straddle two 32-byte sectors,
// and the next step reads the other half of each: through L1 (.ca) that half is a hit, not a
// second L2 request (the L2's tag lookups were the busy part). Aligned pieces skip L1 (.cg),
// which measured faster for them. `copy` false: the copy goes out switched off, so that lanes or
// steps without a piece need no branch (branches and their reconvergence held a large share of
// a step's stall samples in a profile).
constexpr bool kCopyThroughL1 = kPad % 32 != 0;

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
  unsigned constant_rounds;  // the constant border (kMappedRows): bit i, round i's row is outside
};

__device__ __forceinline__ StageSource stage_source(const unsigned char* __restrict__ in, int pitch,
                                                    int height, int row_bytes, int xv0, int y_top,
                                                    int lane) {
  StageSource s;
  const bool rows_inside = kMappedRows || (y_top >= 0 && y_top + kRowsNeeded <= height);
  const int first = y_top + (lane >> 1);
  // A constant-border row outside names row 0, a row the pointer may point into; it is never
  // copied.
  const auto mapped = [height](int r) { return max(border_index(r, height), 0); };
  const int row = kMappedRows ? mapped(first) : rows_inside ? first : 0;
  const int second_row = kMappedRows ? mapped(first + 16) : row + 16;
  s.lane_src = in + static_cast<ptrdiff_t>(row) * pitch + xv0 + 16 * (lane & 1);
  s.second_round = static_cast<ptrdiff_t>(second_row - row) * pitch;
  s.lane_dst = stage_offset(lane >> 1, lane & 1);
  // step s is inside when xv0 + 32 s >= 0 and xv0 + 32 s + 32 <= row_bytes
  s.first_inside = xv0 >= 0 ? 0 : (31 - xv0) >> 5;
  s.end_inside = rows_inside && row_bytes - 32 - xv0 >= 0 ? ((row_bytes - 32 - xv0) >> 5) + 1 : 0;
  s.constant_rounds = kConstantBorder && kMappedRows
                          ? (border_index(first, height) < 0 ? 1u : 0u) |
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
__device__ __forceinline__ void edge_piece(const unsigned char* __restrict__ row, bool constant_row,
                                           int xb, int width, unsigned (&words)[4]) {
#pragma unroll
  for (int w = 0; w < 4; ++w) {
    unsigned word = 0;
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      int channel;
      const int sx = source_column(xb + 4 * w + k, width, channel);
      const unsigned v = (kConstantBorder && (constant_row || sx < 0)) ? constant_border(channel)
                                                                       : __ldg(row + sx);
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
// `slot` is the slot's shared address and `lane_dst` the lane's piece in it, source.lane_dst +
// slot. kInside: the caller knows every step it stages is inside (Walk::run, kInterior or
// kFilledEdges); then `wanted` says whether the walk copies this step at all (the copies go out
// switched off where not, see cp_async16_if). Other callers pass true.
template <bool kInside>
__device__ __forceinline__ void stage_step(const unsigned char* __restrict__ in, int pitch,
                                           int width, int height, int row_bytes,
                                           const StageSource& source, const unsigned char* src,
                                           int xv, int y_top, int step, unsigned slot,
                                           unsigned lane_dst, int lane, bool wanted) {
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
        cp_async16_if<kCopyThroughL1>(lane_dst + 512 * i,
                                      src + (kMappedRows ? (i == 0 ? 0 : source.second_round)
                                                         : static_cast<ptrdiff_t>(16 * i) * pitch),
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
      cp_async16<kCopyThroughL1>(at, in + static_cast<size_t>(sy) * pitch + xb);
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

}  // namespace gb

#endif  // GB_MMA_STAGE_INCLUDED
