// mma_products.cuh — the two products of a step: the vertical one into the intermediate's byte
// planes, and the horizontal one (general, or narrow: one window chunk per N-tile, k32 or k16)
// from a complete window into the output bytes, with their stores.
#ifndef GB_MMA_PRODUCTS_INCLUDED
#define GB_MMA_PRODUCTS_INCLUDED 1
#ifndef GB_MMA_TAPS_INCLUDED
#include "mma_taps.cuh"
#endif
#ifndef GB_MMA_STAGE_INCLUDED
#include "mma_stage.cuh"
#endif
#ifndef GB_MMA_FINISH_INCLUDED
#include "mma_finish.cuh"
#endif

namespace gb {

// Vertical product of one task, stored as the low and high byte planes of m = (a + 2^7) >> 8
// (exact sums: of m = a, which fits 16 bits, exact_mid_fits).
// The lane's results are rows g and g + 8, byte columns 4t .. 4t + 3 and 16 + 4t .. 19 + 4t of
// the task, at `slot` in the planes (plane_column of the slot's first column), and also at
// `copy_slot` where it is not negative (the narrow ring's copies).
// store_lane: the shared address of the lane's word (row g, word t) in the low plane's slot 0.
// Where m lies in a = 256 acc_hi + acc_lo: bytes 1 and 2 (m = a >> 8, the rounding in), or for
// exact sums bytes 0 and 1 (m = a). __byte_perm's selector for (a0, a1): m0's low byte, m1's,
// m0's high byte, m1's.
constexpr unsigned kMidBytes = kExactSums ? 0x5140u : 0x6251u;

__device__ __forceinline__ void vertical_task(TaskWords tw, const WeightsY& weights,
                                              unsigned store_lane, int slot, int copy_slot) {
  unsigned acc_lo[4][4], acc_hi[4][4] = {};  // [byte i of the lane's word column][fragment]
#pragma unroll
  for (int c = 0; c < kChunksY; ++c) {
    unsigned w_lo[4], w_hi[4];
    weights.get(c, 0, w_lo);
    if constexpr (kHighY) weights.get(c, 1, w_hi);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      if (c == 0) {
        // 2^7 + sum < 2^24 (common.cuh): the rounding rides in the low product
        mma_k32_first(acc_lo[i], w_lo, tw.w[c][0][i], tw.w[c][1][i], kVerticalC);
        if constexpr (kHighY)
          mma_k32_first<kSignedY>(acc_hi[i], w_hi, tw.w[c][0][i], tw.w[c][1][i]);
      } else {
        mma_k32(acc_lo[i], w_lo, tw.w[c][0][i], tw.w[c][1][i]);
        if constexpr (kHighY) mma_k32<kSignedY>(acc_hi[i], w_hi, tw.w[c][0][i], tw.w[c][1][i]);
      }
    }
  }
  // N-tile i, fragment f: row g (f < 2) or g + 8, B column 2t + (f & 1), which is byte column
  // 16 (i / 2) + 4t + 2 (f & 1) + i % 2 of the task: word n of the lane's row is N-tiles 2n, 2n
  // + 1.
#pragma unroll
  for (int n = 0; n < 2; ++n) {
    unsigned lo[2], hi[2];  // [half: row g, g + 8]
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      unsigned a[4];  // byte k of word n: N-tile 2n + k % 2, fragment 2 half + k / 2
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        const int i = 2 * n + (k & 1), f = 2 * half + (k >> 1);
        a[k] = acc_hi[i][f] * 256u + acc_lo[i][f];  // rounding already in; < 2^24 (mod 2^32)
      }
      const unsigned x = __byte_perm(a[0], a[1], kMidBytes);  // a0's m low, a1's, a0's high, a1's
      const unsigned y = __byte_perm(a[2], a[3], kMidBytes);
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

// Writes the lane's outputs of a unit: rows g and g + 8, bytes 8t .. 8t + 7. kInside: the caller
// knows every unit of the walk is inside.
template <bool kInside>
__device__ __forceinline__ void store_outputs(const unsigned (&result)[2][2], Lane l,
                                              const OutputTarget& o, int unit) {
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

// Horizontal product for 16 rows x 32 outputs starting at intermediate column u0 (the window
// is columns u0 .. u0 + 32 kChunksX). N-tile j's column n is output 8 (n / 2) + 2j + n % 2,
// so the lane's results for a row are its 8 consecutive outputs 8t .. 8t + 7. Under a tight
// register budget (4+ blocks per SM) the 4 N-tiles go in 2 passes, each reloading the window;
// otherwise in one, each window chunk loaded once.
constexpr int kPasses = GB_MIN_BLOCKS >= 4 ? 2 : 1;
constexpr int kTilesPerPass = 4 / kPasses;
template <bool kInside>
__device__ __forceinline__ void horizontal_task(const unsigned char* plane_lo,
                                                const unsigned char* plane_hi,
                                                const TapSource& taps, int unit, Lane l, int lane,
                                                const OutputTarget& target, const InputWords& in) {
  const int row_offset = (lane & 15) * kPlaneStride + (lane >> 4) * 16;
  unsigned result[2][2];  // [row half][word]: the lane's 8 packed output bytes of a row
#pragma unroll
  for (int jp = 0; jp < kPasses; ++jp) {  // N-tiles kTilesPerPass jp, ...
    unsigned ll[kTilesPerPass][4], mid[kTilesPerPass][4], hh[kTilesPerPass][4] = {};
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
        if constexpr (!kHighX) {  // taps of one byte: ll and m_hi q_lo alone
          if (c == 0) {
            mma_k32_first(ll[jj], m_lo, q_lo.x, q_lo.y, kHorizontalC);
            mma_k32_first<kSignedMid>(mid[jj], m_hi, q_lo.x, q_lo.y);
          } else {
            mma_k32(ll[jj], m_lo, q_lo.x, q_lo.y);
            mma_k32<kSignedMid>(mid[jj], m_hi, q_lo.x, q_lo.y);
          }
          continue;
        }
        const uint2 q_hi = taps.get(c, j, 1);
        if (c == 0) {
          mma_k32_first(ll[jj], m_lo, q_lo.x, q_lo.y, kHorizontalC);  // 2^23 + sum < 2^31
          mma_k32_first<false, kSignedX>(mid[jj], m_lo, q_hi.x, q_hi.y);
          mma_k32_first<kSignedMid, kSignedX>(hh[jj], m_hi, q_hi.x, q_hi.y);
        } else {
          mma_k32(ll[jj], m_lo, q_lo.x, q_lo.y);
          mma_k32<false, kSignedX>(mid[jj], m_lo, q_hi.x, q_hi.y);
          mma_k32<kSignedMid, kSignedX>(hh[jj], m_hi, q_hi.x, q_hi.y);
        }
        mma_k32<kSignedMid>(mid[jj], m_hi, q_lo.x, q_lo.y);
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
          b[jj][n] = hh[jj][f] * 65536u + mid[jj][f] * 256u +
                     ll[jj][f];  // rounding already in; mod 2^32, exact
        }
      }
#pragma unroll
      for (int w = 0; w < kTilesPerPass / 2;
           ++w) {  // N-tiles 2w', 2w' + 1 give outputs 8t + 4w' ..
        const int word = jp * kTilesPerPass / 2 + w;
        result[half][word] =
            finish_word(b[2 * w][0], b[2 * w][1], b[2 * w + 1][0], b[2 * w + 1][1],
                        word == 0 ? in.row[half].x : in.row[half].y, kAlphaOfConsecutive);
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
  // b0: k = 4t + e, n = g: window column k - lead is input delta k - lead - n; b1: k + 16 (k32
  // only).
  const int d = 4 * l.t - (kTiny ? kTinyLead : kNarrowLead) - l.g;
  NarrowTaps taps;
#pragma unroll
  for (int hi = 0; hi < 2; ++hi)
    taps.b[hi][0] = window_x(hi, d), taps.b[hi][1] = window_x(hi, d + 16);
  return taps;
}

// The output byte of b = 2^16 hh + 2^8 mid + ll (the rounding already in; mod 2^32, exact) for
// the four results of an N-tile: bytes of row g (outputs 2t, 2t + 1), then of row g + 8.
// `in`: the N-tile's input bytes in that order, `alpha`: which of them are alpha kept (unsharp).
__device__ __forceinline__ unsigned narrow_outputs(const unsigned (&ll)[4],
                                                   const unsigned (&mid)[4],
                                                   const unsigned (&hh)[4], unsigned in,
                                                   unsigned alpha) {
  unsigned b[4];
#pragma unroll
  for (int f = 0; f < 4; ++f) b[f] = hh[f] * 65536u + mid[f] * 256u + ll[f];
  return finish_word(b[0], b[1], b[2], b[3], in, alpha);
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
__device__ __forceinline__ void narrow_tiles_k32(unsigned lane_offset, const NarrowTaps& taps,
                                                 unsigned (&w)[4], const unsigned (&in)[4],
                                                 unsigned alpha) {
#pragma unroll
  for (int j = kFirstTile; j < kEndTile; ++j) {
    // a0: row g, k = 4t..; a1: row g + 8; a2, a3: k + 16
    const uint2 lo01 = window_pair(lane_offset, 0, 8 * j),
                lo23 = window_pair(lane_offset, 0, 8 * j + 16);
    const uint2 hi01 = window_pair(lane_offset, 1, 8 * j),
                hi23 = window_pair(lane_offset, 1, 8 * j + 16);
    const unsigned m_lo[4] = {lo01.x, lo01.y, lo23.x, lo23.y};
    const unsigned m_hi[4] = {hi01.x, hi01.y, hi23.x, hi23.y};
    unsigned ll[4], mid[4], hh[4] = {};
    mma_k32_first(ll, m_lo, taps.b[0][0], taps.b[0][1], kHorizontalC);
    if constexpr (kHighX) {
      mma_k32_first<false, kSignedX>(mid, m_lo, taps.b[1][0], taps.b[1][1]);
      mma_k32<kSignedMid>(mid, m_hi, taps.b[0][0], taps.b[0][1]);
      mma_k32_first<kSignedMid, kSignedX>(hh, m_hi, taps.b[1][0], taps.b[1][1]);
    } else {  // taps of one byte (kHighX): their high bytes' products are 0
      mma_k32_first<kSignedMid>(mid, m_hi, taps.b[0][0], taps.b[0][1]);
    }
    w[j] = narrow_outputs(ll, mid, hh, in[j], alpha);
  }
}

// The k16 form (kTiny), N-tiles kFirstTile .. kEndTile - 1. N-tile j's window is bytes 8j -
// kTinyLead .. + 15 of the unit's outputs: a lane loads one pair of rows of each plane per N-tile,
// its whole A fragment.
template <int kFirstTile, int kEndTile>
__device__ __forceinline__ void narrow_tiles_k16(unsigned lane_offset, const NarrowTaps& taps,
                                                 unsigned (&w)[4], const unsigned (&in)[4],
                                                 unsigned alpha) {
#pragma unroll
  for (int j = kFirstTile; j < kEndTile; ++j) {
    const uint2 lo =
        window_pair(lane_offset, 0, kNarrowLead - kTinyLead + 8 * j);  // a0: row g, a1: g + 8
    const uint2 hi = window_pair(lane_offset, 1, kNarrowLead - kTinyLead + 8 * j);
    unsigned ll[4], mid[4], hh[4] = {};
    mma_k16_first(ll, lo.x, lo.y, taps.b[0][0], kHorizontalC);
    if constexpr (kHighX) {
      mma_k16_first<false, kSignedX>(mid, lo.x, lo.y, taps.b[1][0]);
      mma_k16<kSignedMid>(mid, hi.x, hi.y, taps.b[0][0]);
      mma_k16_first<kSignedMid, kSignedX>(hh, hi.x, hi.y, taps.b[1][0]);
    } else {  // taps of one byte (kHighX): their high bytes' products are 0
      mma_k16_first<kSignedMid>(mid, hi.x, hi.y, taps.b[0][0]);
    }
    w[j] = narrow_outputs(ll, mid, hh, in[j], alpha);
  }
}

// Unit u's outputs are intermediate columns 32u + 32 .. 32u + 63 (kPad = 32), its window 32u + 20
// .. 32u + 75 (k16: 32u + 28 .. 32u + 67), in plane slots u % 3 .. u % 3 + 2 (kSlot: u % 3, known
// where the caller runs steps in threes). The unit is due at step u + 2, whose vertical product
// gives columns 32u + 64 on: the windows of N-tiles 0 and 1 (k32; 0 to 2 for k16) end at 32u + 59,
// before them, so the step multiplies those first, before its copies and its vertical product,
// as independent work beside that product's chain of latencies, and the rest after it
// (horizontal_task_narrow). Measured: 4K RGB 7 x 7 faster; the k16 form's three early N-tiles
// made 4K gray slower, so it takes none. A finish that takes the input bytes (the unsharp mask,
// alpha kept) has them from the step before (staged_inputs), so it takes them too.
constexpr int kEarlyTiles = kTiny ? 0 : 2;
// N-tiles kFirstTile .. kEndTile - 1 of the unit whose window starts in slot kSlot. load_lane: the
// shared address of the lane's first word (row g, window byte 4t) of a unit whose window starts in
// the low plane's slot 0.
template <int kSlot, int kFirstTile, int kEndTile>
__device__ __forceinline__ void narrow_tiles(unsigned load_lane, const NarrowTaps& taps,
                                             unsigned (&w)[4], const unsigned (&in)[4],
                                             unsigned alpha) {
  if (kTiny) {
    narrow_tiles_k16<kFirstTile, kEndTile>(load_lane + plane_column(32 * kSlot), taps, w, in,
                                           alpha);
  } else {
    narrow_tiles_k32<kFirstTile, kEndTile>(load_lane + plane_column(32 * kSlot), taps, w, in,
                                           alpha);
  }
}

// The rest of a unit's N-tiles, once its window is complete, and its outputs. w[0 .. kEarlyTiles
// - 1]: the early N-tiles' results (j: bytes of row g, outputs 8j + 2t, + 1, then of row g + 8).
// in_words: the input bytes under the outputs (kStagedInputs: staged_inputs), else unused.
template <int kSlot, bool kInside>
__device__ __forceinline__ void horizontal_task_narrow(unsigned load_lane, const NarrowTaps& taps,
                                                       unsigned (&w)[4], int unit, Lane l,
                                                       const OutputTarget& target,
                                                       const unsigned (&in_words)[4]) {
  narrow_tiles<kSlot, kEarlyTiles, 4>(load_lane, taps, w, in_words, narrow_alpha(l));
  unsigned result[2][2];
  unit_rows(w, l.t, result);
  store_outputs<kInside>(result, l, target, unit);
}

}  // namespace gb

#endif  // GB_MMA_PRODUCTS_INCLUDED
