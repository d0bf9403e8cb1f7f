// matrix_mma.cu — a convolution matrix not of rank one whose weights are bytes (-128..127), on
// 8-bit images, on the integer tensor cores (sm_80 and later): what matrix_dp4a.cu computes, the
// same exact sums, each four outputs finished by Matrix8::finish_word (finish_sample, the CPU
// twin's function, of each), so the bytes are the CPU's.
//
// Each row of the matrix is a banded product. For output rows o = 0..15 of a warp and the 8
// output bytes n of an N-tile, matrix row j adds
//   S[o][n] += sum_k A[o][k] B_j[k][n],  A = the input bytes of tile row o + j (as they lie,
//   channels interleaved), k over a window of 32 of them, B_j[k][n] = the weight of row j that an
//   input k - lead - n bytes right of output n gets (weights kChannels apart; 0 elsewhere),
// one mma.m16n8k32 (u8 samples, s8 weights, s32 sums) a matrix row and N-tile. Nothing is
// rounded before the finish, so the order of the additions does not matter: the sums are the
// dense kernel's integers. Where the matrix reaches at most 8 bytes each side (gray up to 17
// wide, RGB and RGBA up to 5) every window starts on a 16-byte boundary, 16 bytes before an
// even N-tile's first output and 8 before an odd one's, and ldmatrix loads A at once (two sets
// of B fragments, one a lead); up to 12 bytes, windows start 12 bytes before their outputs,
// on 4-byte boundaries, and A comes in 32-bit loads.
//
// Each warp takes one tile of 16 rows x 128 bytes (matrix_mma_geometry.cuh): it copies the
// tile's input rows with their reach into its own shared buffer (cp.async where a 16-byte piece
// lies in the image, the border rule byte by byte where it does not; a tile wholly inside the
// image with no per-piece arithmetic), waits, and walks across it, 32 outputs a step: the
// windows of each matrix row (three ldmatrix, each into registers of its own, so that no
// fragment is copied), four N-tiles' products for every matrix row, their finish, a
// transposition among each quad of lanes (mma_lanes.cuh) so that every lane stores 8
// consecutive bytes of two rows, unchecked where the tile lies in the image. The steps are
// unrolled. What made it fast was more warps resident to hide the copies' latency, and fewer
// instructions a step, not a deeper pipeline: warps that walked on, the next tile's copies in
// flight, waited longer the longer their walk (bench/RESULTS.md, runs 74-85).
//
// codegen emits: prelude (GB_POLICY Matrix8, the weights in GB_MATRIX, the finish numbers
// GB_FINISH_NUMBERS, GB_KEEP_ALPHA), common.cuh, arithmetic.cuh, mma_ptx.cuh,
// mma_lanes.cuh, matrix_mma_geometry.cuh, matrix_weights.cuh, matrix_mma.cu.
#ifndef GB_COMMON_INCLUDED
#include "common.cuh"
#endif
#ifndef GB_ARITHMETIC_INCLUDED
#include "arithmetic.cuh"
#endif
#ifndef GB_MMA_PTX_INCLUDED
#include "mma_ptx.cuh"
#endif
#ifndef GB_MMA_LANES_INCLUDED
#include "mma_lanes.cuh"
#endif
#ifndef GB_MATRIX_MMA_GEOMETRY_INCLUDED
#include "matrix_mma_geometry.cuh"
#endif

#ifndef GB_POLICY
#define GB_POLICY Matrix8
#define GB_MATRIX {-1, -1, -1, -1, 8, -1, -1, -1, -1}
#define GB_FINISH_NUMBERS {1, 0, 1, 4080}
#define GB_KEEP_ALPHA 0
#define GB_BLOCK_THREADS 128
#define GB_TILE_W 512
#define GB_TILE_H 16
#endif
// The weights (weight(j, i)), signed bytes.
#ifndef GB_MATRIX_WEIGHTS_INCLUDED
#include "matrix_weights.cuh"
#endif

namespace gb {

typedef gb_arith::GB_POLICY Policy;
static_assert(sizeof(Policy::Sample) == 1, "8-bit samples");

constexpr int kTileRows = gb_matrix_mma::kTileRows;
constexpr int kTileBytes = gb_matrix_mma::kTileBytes;
constexpr int kWarpBytes = gb_matrix_mma::kWarpBytes;
constexpr int kWarps = gb_matrix_mma::kWarps;
constexpr int kPad = gb_matrix_mma::kPad;
constexpr int kRowStride = gb_matrix_mma::kRowStride;
constexpr int kLoadRows = gb_matrix_mma::load_rows(kRadiusY);
constexpr int kBufferBytes = gb_matrix_mma::buffer_bytes(kRadiusY);
constexpr int kPieces = (kWarpBytes + 2 * kPad) / 16;  // 16-byte pieces a loaded row
constexpr int kReach = kChannels * kRadiusX;
static_assert(gb_matrix_mma::takes(kChannels, kRadiusX, kRadiusY), "codegen checks the reach");
static_assert(GB_BLOCK_THREADS == 32 * kWarps && GB_TILE_W == kTileBytes && GB_TILE_H == kTileRows,
              "warps side by side, a tile each");
constexpr bool kAligned = gb_matrix_mma::aligned_windows(kReach);
constexpr int kLeads = kAligned ? 2 : 1;
// How many bytes N-tile j's window starts before its first output (see the top).
__host__ __device__ constexpr int lead_of(int j) { return kAligned ? (j & 1 ? 8 : 16) : 12; }
static_assert(lead_of(0) >= kReach && lead_of(1) >= kReach && 8 + kReach <= 32 - lead_of(0) &&
                  8 + kReach <= 32 - lead_of(1),
              "a window holds its N-tile's outputs and their reach");


// B_j's byte for an input `delta` bytes right of the output (its two's complement bits).
__host__ __device__ constexpr unsigned band_byte(int j, int delta) {
  if (delta % kChannels != 0) return 0u;
  const int i = delta / kChannels + kRadiusX;
  return i < 0 || i >= kSizeX ? 0u : static_cast<unsigned>(weight(j, i)) & 255u;
}
// A lane's B fragment words are windows of 4 consecutive deltas: b0 = B[4t + e][g], e = 0..3,
// the deltas from 4t - lead - g; b1 the same 16 further. band_windows.word[j][d - kFirstDelta]
// packs deltas d .. d + 3 of row j, for every d a lane takes.
constexpr int kFirstDelta = -16 - 7;
constexpr int kDeltas = 4 * 3 + 16 - 8 + 1 - kFirstDelta;
struct BandWindows {
  unsigned word[kSizeY][kDeltas];
};
__host__ __device__ constexpr BandWindows make_band_windows() {
  BandWindows t{};
  for (int j = 0; j < kSizeY; ++j) {
    for (int i = 0; i < kDeltas; ++i) {
      for (int e = 0; e < 4; ++e) t.word[j][i] |= band_byte(j, kFirstDelta + i + e) << (8 * e);
    }
  }
  return t;
}
// In global memory: each lane reads its own words (constant memory would serialise them).
__device__ const BandWindows band_windows = make_band_windows();

// The lane's B fragments: [matrix row][lead: even N-tiles, odd ones][b0, b1].
struct RowWeights {
  unsigned b[kSizeY][kLeads][2];
};
__device__ __forceinline__ RowWeights row_weights(Lane l) {
  RowWeights w;
#pragma unroll
  for (int j = 0; j < kSizeY; ++j) {
#pragma unroll
    for (int v = 0; v < kLeads; ++v) {
      const int d = 4 * l.t - lead_of(v) - l.g - kFirstDelta;
      w.b[j][v][0] = __ldg(&band_windows.word[j][d]);
      w.b[j][v][1] = __ldg(&band_windows.word[j][d + 16]);
    }
  }
  return w;
}

// Copies a warp's tile of input rows y0 - ry .. into its buffer: loaded byte x of a row (x = 0 ..
// kWarpBytes + 2 kPad - 1) is image byte column x0 - kPad + x, the border applied. 16-byte pieces
// wholly in the image (of 16-byte aligned rows) go by cp.async, as one group; the others byte by
// byte through the border rule.
__device__ __forceinline__ void load_tile(unsigned buffer, const unsigned char* __restrict__ in,
                                          int pitch, bool aligned, int x0, int y0, int width,
                                          int height, int lane) {
  const int row_bytes = width * kChannels;
  if (aligned && y0 - kRadiusY >= 0 && y0 + kTileRows + kRadiusY <= height && x0 - kPad >= 0 &&
      x0 + kWarpBytes + kPad <= row_bytes) {
    // Wholly inside, as most tiles are: the same pieces of every such tile, no border rule.
    const unsigned char* first = in + static_cast<size_t>(y0 - kRadiusY) * pitch + (x0 - kPad);
#pragma unroll
    for (int i = 0; i < (kLoadRows * kPieces + 31) / 32; ++i) {
      const int n = lane + 32 * i;
      const int r = n / kPieces, c = n - (n / kPieces) * kPieces;
      if (n < kLoadRows * kPieces)
        cp_async16<false>(buffer + r * kRowStride + 16 * c,
                          first + static_cast<size_t>(r) * pitch + 16 * c);
    }
    cp_async_commit();
    return;
  }
  for (int n = lane; n < kLoadRows * kPieces; n += 32) {
    const int r = n / kPieces;
    const int c = n - r * kPieces;
    const int y = y0 - kRadiusY + r;
    const int x = x0 - kPad + 16 * c;
    const int sy = border_index(y, height);
    const unsigned at = buffer + r * kRowStride + 16 * c;
    if (aligned && sy >= 0 && x >= 0 && x + 16 <= row_bytes) {
      cp_async16<false>(at, in + static_cast<size_t>(sy) * pitch + x);
    } else {
      unsigned v[4] = {0u, 0u, 0u, 0u};
#pragma unroll
      for (int s = 0; s < 16; ++s) {
        v[s / 4] |= load_sample(in, pitch, x + s, y, width, height) << (8 * (s % 4));
      }
      sts128(at, v);
    }
  }
  cp_async_commit();
}

// The A fragments of matrix row `dy` of a step (row_at: the lane's address of its words at that
// row, the step's first output; see the kernel). Aligned windows: N-tiles 0 to 3 start 16, 8, 16
// and 8 bytes before their outputs, at bytes -16, 0, 0 and 16 of the step: three windows, each
// one ldmatrix (lane 8m + i: row i + 8 (m % 2), 16-byte half m / 2) into registers of its own.
// (Two ldmatrix whose halves make up all three read a third less shared memory, but the middle
// window's fragment then has to be copied together for every product: more instructions, and
// those cost more; run 83.)
static_assert(!kAligned || (lead_of(0) == 16 && lead_of(1) == 8), "the windows");
__device__ __forceinline__ void aligned_windows(unsigned (&a)[3][4], unsigned row_at) {
  ldmatrix_x4(a[0], row_at - 16);
  ldmatrix_x4(a[1], row_at);
  ldmatrix_x4(a[2], row_at + 16);
}
// Which of them N-tile j takes: 0 -> -16, 1 and 2 -> 0, 3 -> 16.
__host__ __device__ constexpr int window_of(int j) { return (j + 1) / 2; }
// Else N-tile j's window starts 12 bytes before its outputs, in 32-bit loads (a0: row g, bytes
// 4t ..; a1: row g + 8; a2, a3: 16 bytes on), one N-tile at a time (fewer live registers).
__device__ __forceinline__ void word_fragment(unsigned (&a)[4], unsigned row_at, int j) {
  const unsigned at = row_at + 8 * j - lead_of(j);
  a[0] = lds32(at);
  a[1] = lds32(at + 8 * kRowStride);
  a[2] = lds32(at + 16);
  a[3] = lds32(at + 8 * kRowStride + 16);
}

// One matrix row's products into the four N-tiles' sums.
template <bool kFirst>
__device__ __forceinline__ void row_product(unsigned (&acc)[4], const unsigned (&a)[4],
                                            const unsigned (&b)[2]) {
  if constexpr (kFirst) {
    mma_k32_first<false, true>(acc, a, b[0], b[1]);
  } else {
    mma_k32<false, true>(acc, a, b[0], b[1]);
  }
}

// The alpha bytes of 8 consecutive outputs from a multiple of 8 bytes: channel C - 1.
constexpr bool kKeepAlpha = GB_KEEP_ALPHA != 0;
static_assert(!kKeepAlpha || kChannels == 2 || kChannels == 4, "alpha is the last of 2 or 4");
constexpr unsigned kAlphaMask = kChannels == 4 ? 0xff000000u : 0xff00ff00u;

// Stores the lane's 8 bytes of row y from byte column x (checked against the image's edges).
__device__ __forceinline__ void store8(unsigned char* __restrict__ out, int pitch, bool aligned,
                                       int x, int y, int row_bytes, int height, unsigned w0,
                                       unsigned w1) {
  if (y >= height || x >= row_bytes) return;
  unsigned char* dst = out + static_cast<size_t>(y) * pitch + x;
  if (aligned && x + 8 <= row_bytes) {
    store_global8(dst, w0, w1);
    return;
  }
  for (int s = 0; s < 8 && x + s < row_bytes; ++s)
    dst[s] = static_cast<unsigned char>((s < 4 ? w0 : w1) >> (8 * (s % 4)));
}

// The warp's 16 rows x kWarpBytes of its tile: the lane's outputs of rows y and y + 8 from byte
// column x on, a step of 32 bytes at a time. lane_at, alpha_at: the lane's A words and its input
// bytes under its outputs at the first step (shared addresses).
__device__ __forceinline__ void filter_tile(unsigned lane_at, unsigned alpha_at,
                                            const RowWeights& weights, Lane l,
                                            unsigned char* __restrict__ out, int pitch,
                                            bool out_aligned, int x, int y, int row_bytes,
                                            int height) {
  constexpr Policy::Numbers numbers = GB_FINISH_NUMBERS;  // constants: folded into the finish
  // Both of the lane's rows and the whole tile across in the image: its stores need no checks.
  const bool inside = out_aligned && y + 8 < height && x + kWarpBytes <= row_bytes;
  unsigned char* lane_out = out + static_cast<size_t>(y < height ? y : 0) * pitch + x + 8 * l.t;
  const size_t eight_rows = 8 * static_cast<size_t>(pitch);
#pragma unroll
  for (int u = 0; u < kWarpBytes / 32; ++u, x += 32, lane_out += 32) {
    if (x >= row_bytes) break;  // the same for the whole warp
    unsigned acc[4][4];
#pragma unroll
    for (int dy = 0; dy < kSizeY; ++dy) {
      const unsigned row_at = lane_at + 32 * u + dy * kRowStride;
      if constexpr (kAligned) {
        unsigned a[3][4];
        aligned_windows(a, row_at);
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          if (dy == 0) {
            row_product<true>(acc[j], a[window_of(j)], weights.b[dy][j & 1]);
          } else {
            row_product<false>(acc[j], a[window_of(j)], weights.b[dy][j & 1]);
          }
        }
      } else {
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          unsigned a[4];
          word_fragment(a, row_at, j);
          if (dy == 0) {
            row_product<true>(acc[j], a, weights.b[dy][0]);
          } else {
            row_product<false>(acc[j], a, weights.b[dy][0]);
          }
        }
      }
    }
    unsigned w[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      w[j] = Policy::finish_word(static_cast<int>(acc[j][0]), static_cast<int>(acc[j][1]),
                                 static_cast<int>(acc[j][2]), static_cast<int>(acc[j][3]), numbers);
    }
    unsigned result[2][2];
    unit_rows(w, l.t, result);
    if constexpr (kKeepAlpha) {
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const uint2 v = lds64(alpha_at + 32 * u + 8 * half * kRowStride);
        result[half][0] = (result[half][0] & ~kAlphaMask) | (v.x & kAlphaMask);
        result[half][1] = (result[half][1] & ~kAlphaMask) | (v.y & kAlphaMask);
      }
    }
    if (inside) {
      store_global8(lane_out, result[0][0], result[0][1]);
      store_global8(lane_out + eight_rows, result[1][0], result[1][1]);
    } else {
      store8(out, pitch, out_aligned, x + 8 * l.t, y, row_bytes, height, result[0][0],
             result[0][1]);
      store8(out, pitch, out_aligned, x + 8 * l.t, y + 8, row_bytes, height, result[1][0],
             result[1][1]);
    }
  }
}

}  // namespace gb

extern "C" __global__ void __launch_bounds__(GB_BLOCK_THREADS, gb_matrix_mma::kMinBlocks)
    gb_matrix_kernel(const unsigned char* __restrict__ in, int in_pitch,
                     unsigned char* __restrict__ out, int out_pitch, int width, int height) {
  using namespace gb;
  __shared__ __align__(16) unsigned char buffers[kWarps][kBufferBytes];
  in = layer_image(in, in_pitch, height);  // this block's image of a stack
  out = layer_image(out, out_pitch, height);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int x0 = blockIdx.x * kTileBytes + warp * kWarpBytes;  // the warp's first output byte
  const int y0 = blockIdx.y * kTileRows;                       // and row
  const int row_bytes = width * kChannels;
  if (x0 >= row_bytes || y0 >= height) return;  // no block barrier follows: warps work alone
  const bool in_aligned =
      ((reinterpret_cast<size_t>(in) | static_cast<size_t>(in_pitch)) & 15) == 0;
  const unsigned buffer = shared_address(buffers[warp]);
  load_tile(buffer, in, in_pitch, in_aligned, x0, y0, width, height, lane);
  const Lane l{lane >> 2, lane & 3};
  const RowWeights weights = row_weights(l);  // while the copies are in flight
  // The lane's offset of its A words at the first step, matrix row 0: where windows are aligned,
  // ldmatrix's row (lane % 8 + 8 ((lane / 8) % 2)) and half (lane / 16); else row g, word t. And
  // of the input bytes under its outputs (alpha kept): row g + ry, bytes 8t ..
  const int lane_row = kAligned ? (lane & 7) + 8 * ((lane >> 3) & 1) : l.g;
  const int lane_byte = kAligned ? 16 * (lane >> 4) : 4 * l.t;
  const unsigned lane_offset = lane_row * kRowStride + kPad + lane_byte;
  const unsigned alpha_offset = (l.g + kRadiusY) * kRowStride + kPad + 8 * l.t;
  const bool out_aligned =
      ((reinterpret_cast<size_t>(out) | static_cast<size_t>(out_pitch)) & 7) == 0;
  cp_async_wait<0>();
  __syncwarp();
  filter_tile(buffer + lane_offset, buffer + alpha_offset, weights, l, out, out_pitch, out_aligned,
              x0, y0 + l.g, row_bytes, height);
}
