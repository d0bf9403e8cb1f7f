// mma_finish.cuh — the tensor-core kernel's output bytes from its horizontal sums. Each sum b is
// Straight8's horizontal sum with the rounding 2^23 already in (mma_layout.cuh's kHorizontalC or
// rounding row), or a matrix's exact sum S (kExactSums). The Gaussian's output is b's top byte.
// The unsharp mask's (the prelude defines GB_FINISH_NUMBERS, Unsharp8's numbers, and
// GB_KEEP_ALPHA) is arithmetic.cuh's Unsharp8::mirrored of b - 2^23 and the input byte under the
// output, whose byte 2 inverted is Unsharp8::finish_sample's; a matrix's (GB_FINISH_NUMBERS:
// Matrix8's) is Matrix8::finish_word of four S (finish_sample of each): the functions the CPU
// twin and the other kernels store through, so every path gives the same bytes.
//
// The unsharp mask needs each output's input byte, and so does alpha kept as it is. The narrow
// kernels read them from the staged input, in the order of the narrow product's results
// (staged_inputs); the others load the 8 input bytes under a lane's 8 outputs of each of its two
// rows from global memory (load_inputs) when its step begins, and they arrive while the step
// multiplies.
#ifndef GB_MMA_FINISH_INCLUDED
#define GB_MMA_FINISH_INCLUDED 1
#ifndef GB_MMA_LAYOUT_INCLUDED
#include "mma_layout.cuh"
#endif
#ifndef GB_MMA_PTX_INCLUDED
#include "mma_ptx.cuh"
#endif
#if defined(GB_FINISH_NUMBERS) && !defined(GB_ARITHMETIC_INCLUDED)
#include "arithmetic.cuh"
#endif

namespace gb {

#ifdef GB_FINISH_NUMBERS
constexpr bool kUnsharp = !kExactSums;
// Alpha (the last of 2 or 4 channels) kept as it is; 4 is a multiple of the channel count, so an
// output byte's channel follows from its place in the lane's words.
constexpr bool kKeepAlpha = GB_KEEP_ALPHA != 0;
static_assert(!kKeepAlpha || kChannels == 2 || kChannels == 4, "alpha is the last of 2 or 4");
#else
static_assert(!kExactSums, "a matrix's finish needs its numbers");
constexpr bool kUnsharp = false;
constexpr bool kKeepAlpha = false;
#endif
// Whether the finish takes the input bytes under the outputs.
constexpr bool kLoadsInputs = kUnsharp || kKeepAlpha;

// The input bytes under a lane's outputs of a unit: rows g and g + 8, bytes 8t .. 8t + 7.
struct InputWords {
  uint2 row[2];
};

// Where a lane's outputs come from and go. lane_out (lane_in) is the lane's first output (input)
// byte of the current unit: row y_first + g, byte x0 + 32 unit + 8t; the caller carries both, 32
// bytes a unit. Units below units_inside have all 16 rows and 32 bytes in the image: two 8-byte
// accesses each way and no checks. The input side is used where the finish takes inputs alone.
struct OutputTarget {
  unsigned char* __restrict__ out;
  const unsigned char* __restrict__ in;
  int pitch, in_pitch, y_first, x0, height, row_bytes;
  int units_inside;  // 0 when the warp's rows reach past the image
  unsigned char* lane_out;
  const unsigned char* lane_in;

  __device__ __forceinline__ void next_unit() {
    lane_out += 32;
    opaque(lane_out);
    if (kLoadsInputs) lane_in += 32;
  }
};

__device__ __forceinline__ OutputTarget output_target(unsigned char* __restrict__ out, int pitch,
                                                      const unsigned char* __restrict__ in,
                                                      int in_pitch, int y_first, int x0, int height,
                                                      int row_bytes, Lane l) {
  OutputTarget o{out, in, pitch, in_pitch, y_first, x0, height, row_bytes, 0, nullptr, nullptr};
  o.units_inside = y_first + 16 <= height && row_bytes - x0 >= 32 ? (row_bytes - x0) >> 5 : 0;
  o.lane_out = out + static_cast<ptrdiff_t>(y_first + l.g) * pitch + x0 + 8 * l.t;
  o.lane_in = in + static_cast<ptrdiff_t>(y_first + l.g) * in_pitch + x0 + 8 * l.t;
  return o;
}

// The input bytes under the lane's outputs of `unit` (kLoadsInputs; else nothing is loaded). Bytes
// outside the image are never stored, so they are left 0. kInside: every unit of the walk is.
template <bool kInside>
__device__ __forceinline__ InputWords load_inputs(const OutputTarget& o, Lane l, int unit) {
  InputWords w{};
  if constexpr (!kLoadsInputs) return w;
  if (kInside || unit < o.units_inside) {
    w.row[0] = *reinterpret_cast<const uint2*>(o.lane_in);
    w.row[1] = *reinterpret_cast<const uint2*>(o.lane_in + 8 * static_cast<ptrdiff_t>(o.in_pitch));
    return w;
  }
  if constexpr (!kInside) {
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int y = o.y_first + l.g + 8 * half;
      const int x = o.x0 + 32 * unit + 8 * l.t;
      if (y >= o.height || x >= o.row_bytes) continue;
      const unsigned char* src = o.in + static_cast<size_t>(y) * o.in_pitch + x;
      if (x + 8 <= o.row_bytes) {
        w.row[half] = *reinterpret_cast<const uint2*>(src);
      } else {
        unsigned v[2] = {0u, 0u};
        for (int s = 0; s < 8 && x + s < o.row_bytes; ++s)
          v[s / 4] |= unsigned(src[s]) << (8 * (s % 4));
        w.row[half] = make_uint2(v[0], v[1]);
      }
    }
  }
  return w;
}

// Narrow kernels take the input bytes under a unit's outputs from the staged input instead of
// global memory: unit u's outputs are the columns step u + 1 staged (kPad = 32), rows kRadiusY ..
// kRadiusY + 15 of its slot. That slot is the next step's to fill (stage() of step u + 2 writes
// slot (u + 5) % 4), so step u + 1 reads them right after its own vertical product's ldmatrix,
// before the __syncwarp that orders its reads before those copies, for the unit due at the next
// step; and reads them in the narrow product's N-tile order (narrow_outputs): word j of lane t is
// bytes 8j + 2t, + 1 of rows g and g + 8, one 32-bit load a row from the word holding them and
// one byte permute, where 64-bit loads in row order took a four-lane transposition.
constexpr bool kStagedInputs = kLoadsInputs && kNarrow;
static_assert(!kStagedInputs || kPad == 32, "a unit's outputs are one step's staged columns");

// The 16-byte bank group (0..7) of staged row r's half h: each lane group g (lanes 4g .. 4g + 3)
// reads one word of its rows' halves, so a load is free of bank conflicts where its 8 groups' rows
// lie on 8 distinct groups. Rows kRadiusY + g and kRadiusY + g + 8 in that order do not always
// (radius 3: rows 3 and 5 share a group, a 2-way conflict on every load, which doubled the
// input's wavefronts through the L1's pipe), so a lane group may read its second row first:
// bit g of staged_row_order is set where it does, chosen so that both loads of a word are free of
// conflicts. The order costs nothing: the byte permute's selector takes the words either way.
__host__ __device__ constexpr int stage_group(int r, int h) {
  return (stage_offset(r, h) & 127) / 16;
}
__host__ __device__ constexpr bool distinct_groups(unsigned order, int second, int h) {
  unsigned seen = 0;
  for (int g = 0; g < 8; ++g) {
    const int row = kRadiusY + g + 8 * (second ^ static_cast<int>((order >> g) & 1u));
    const unsigned bit = 1u << stage_group(row, h);
    if (seen & bit) return false;
    seen |= bit;
  }
  return true;
}
__host__ __device__ constexpr bool conflict_free(unsigned order) {
  return distinct_groups(order, 0, 0) && distinct_groups(order, 0, 1) &&
         distinct_groups(order, 1, 0) && distinct_groups(order, 1, 1);
}
__host__ __device__ constexpr unsigned staged_row_order() {
  unsigned order = 0;
  while (order < 255 && !conflict_free(order)) ++order;
  return order;
}
// One exists for every radius (stage_offset repeats every 8 rows).
static_assert(!kStagedInputs || conflict_free(staged_row_order()), "a conflict-free row order");

// A lane's staged rows, the one it reads first and the other (rows g and g + 8 of the outputs,
// in staged_row_order), bytes 4 (t / 2) .. of their first 16-byte half, relative to a slot; the
// other half is offset ^ 16 (stage_offset's half bit).
struct StagedLanes {
  unsigned row[2];
  unsigned selector;  // bytes 0, 1 (t even) or 2, 3 (t odd) of row g's word, then row g + 8's
};
__device__ __forceinline__ StagedLanes staged_lanes(Lane l) {
  constexpr unsigned kOrder = staged_row_order();
  const int swapped = static_cast<int>((kOrder >> l.g) & 1u);
  StagedLanes s;
#pragma unroll
  for (int first = 0; first < 2; ++first)
    s.row[first] = stage_offset(kRadiusY + l.g + 8 * (first ^ swapped), 0) + 4 * (l.t >> 1);
  // __byte_perm(a, b, .): a's bytes are 0-3, b's 4-7; with the rows swapped, row g's are b's.
  s.selector = (l.t & 1) ? (swapped ? 0x3276u : 0x7632u) : (swapped ? 0x1054u : 0x5410u);
  return s;
}
// The input words of the unit whose outputs are the staged columns at shared address `slot`.
__device__ __forceinline__ void staged_inputs(unsigned slot, const StagedLanes& s,
                                              unsigned (&words)[4]) {
#pragma unroll
  for (int j = 0; j < 4; ++j) {  // N-tile j: bytes 8j + 2t, + 1, in half j / 2 of the row
    const unsigned half = 16u * (j >> 1), word = 8u * (j & 1);
    words[j] = __byte_perm(lds32(slot + (s.row[0] ^ half) + word),
                           lds32(slot + (s.row[1] ^ half) + word), s.selector);
  }
}


// The word whose byte k is 0xff where bit k of `bits` is set.
__host__ __device__ constexpr unsigned byte_mask(unsigned bits) {
  return ((bits & 1u) ? 0xffu : 0u) | ((bits & 2u) ? 0xff00u : 0u) | ((bits & 4u) ? 0xff0000u : 0u) |
         ((bits & 8u) ? 0xff000000u : 0u);
}

// Four output bytes from their sums b0 .. b3 (the rounding in) as one word, byte k from b_k. With
// finishing numbers byte k also takes byte k of `in`, the input under it, and copies it where bit
// k of `alpha` says the byte is alpha kept as it is.
__device__ __forceinline__ unsigned finish_word(unsigned b0, unsigned b1, unsigned b2, unsigned b3,
                                                unsigned in, unsigned alpha) {
#ifndef GB_FINISH_NUMBERS
  (void)in;
  (void)alpha;
  return __byte_perm(__byte_perm(b0, b1, 0x0073), __byte_perm(b2, b3, 0x0073), 0x5410);
#elif defined(GB_EXACT_SUMS)
  constexpr gb_arith::MatrixScale numbers = GB_FINISH_NUMBERS;  // constants: folded in
  // |S| < 2^31: the sums as i32
  const unsigned word = gb_arith::Matrix8::finish_word(static_cast<int>(b0), static_cast<int>(b1),
                                                       static_cast<int>(b2), static_cast<int>(b3),
                                                       numbers);
  const unsigned kept = kKeepAlpha ? byte_mask(alpha) : 0u;
  return (word & ~kept) | (in & kept);
#else
  // The unsharp mask: byte 2 of each mirrored z (Unsharp8::mirrored) is 255 - out, so the word
  // of those four bytes, inverted, is the output; alpha bytes kept take the input's instead. A
  // sample is then four instructions (the input byte, its multiply-add, the high multiply-add,
  // the clamp) and the word four more, where the output byte one by one took about eleven.
  constexpr gb_arith::UnsharpScale numbers = GB_FINISH_NUMBERS;
  const unsigned b[4] = {b0, b1, b2, b3};
  unsigned z[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const unsigned v = __byte_perm(in, 0u, 0x4440u | k);  // byte k of the input, alone
    z[k] = gb_arith::Unsharp8::mirrored(b[k] - kHorizontalRound, v, numbers);
  }
  const unsigned mirrored = __byte_perm(__byte_perm(z[0], z[1], 0x0062),
                                        __byte_perm(z[2], z[3], 0x0062), 0x5410);
  const unsigned kept = kKeepAlpha ? byte_mask(alpha) : 0u;
  return (~mirrored & ~kept) | (in & kept);
#endif
}

// The alpha bytes of a word of 4 consecutive outputs (horizontal_task's words: channels 0 .. 3
// of a multiple of 4 bytes from the row's start).
constexpr unsigned kAlphaOfConsecutive = !kKeepAlpha ? 0u : kChannels == 4 ? 0x8u : 0xau;

// The narrow product's words: N-tile j's outputs 8j + 2t, 8j + 2t + 1 of row g, then of row
// g + 8. Its alpha bytes: output 2t + n (mod 4) is alpha where it is channel C - 1.
__device__ __forceinline__ unsigned narrow_alpha(Lane l) {
  if (!kKeepAlpha) return 0u;
  return kChannels == 2 ? 0xau : (l.t & 1) ? 0xau : 0u;
}

}  // namespace gb

#endif  // GB_MMA_FINISH_INCLUDED
