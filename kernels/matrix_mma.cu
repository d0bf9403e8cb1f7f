// matrix_mma.cu — a convolution matrix not of rank one whose weights are bytes (-128..127), on
// 8-bit images, on the integer tensor cores (sm_80 and later): what matrix_dp4a.cu computes, the
// same exact sums, each four outputs finished by Matrix8::finish_word (finish_sample, the CPU
// twin's function, of each), so the bytes are the CPU's.
//
// Each row of the matrix is a banded product. For output rows o = 0..15 of a warp and the 8
// output bytes n of an N-tile, matrix row j adds
//   S[o][n] += sum_k A[o][k] B_j[k][n],  A = the input bytes of tile row o + j (as they lie,
//   channels interleaved), k over a window of 32 of them, B_j[k][n] = the weight of row j that
//   input k of the window gets in output n (weights kChannels apart; 0 elsewhere),
// one mma.m16n8k32 (u8 samples, s8 weights, s32 sums) a matrix row and N-tile. Nothing is
// rounded before the finish, so the order of the additions does not matter: the sums are the
// dense kernel's integers.
//
// Where the matrix reaches at most 8 bytes each side (gray up to 17 wide, RGB and RGBA up to 5),
// the N-tiles' columns are laid out so that a lane's results need little moving: N-tile j's
// column n is output byte 16 (j / 2) + 2 (j % 2) + 4 (n / 2) + n % 2 of the step, so lane t's
// results (columns 2t, 2t + 1) of N-tiles 2h and 2h + 1 are bytes 16h + 4t .. + 3 of its two
// rows, one word each, and lanes t and t ^ 1 swap one word a row for 8 consecutive bytes (one
// shuffle a row where a transposition among four lanes took two shuffles and four selects
// each). Each N-tile's outputs then span 14 bytes, and with their reach lie in the
// window from 8 bytes before the first of N-tiles 2h and 2h + 1 (two sets of B fragments, for
// leads of 8 and 10 bytes): one window for each pair, loaded by one ldmatrix, whose rows must
// start on 16-byte boundaries of shared memory. So the warp's buffer is laid 8 bytes off the
// image's 16-byte boundaries (copied in pieces of 8), not its outputs: a warp that stored
// outside its own 32-byte sectors, sharing them with its neighbour, took 1.6x as long (run 93).
// Beyond 8 bytes of reach (up to 12), N-tile j is bytes 8j ..
// 8j + 7, its window starts 12 bytes before them on a 4-byte boundary, A comes in 32-bit loads,
// and a transposition among each quad of lanes (mma_lanes.cuh) gives every lane 8 consecutive
// bytes of its rows.
//
// Each warp takes one tile of 16 rows x 128 bytes (matrix_mma_geometry.cuh): it copies the
// tile's input rows with their reach into its own shared buffer (cp.async where a 16-byte piece
// lies in the image, the border rule byte by byte where it does not; a tile wholly inside the
// image with no per-piece arithmetic), waits, and walks across it, 32 outputs a step: the
// windows of each matrix row (each into registers of its own, so that no fragment is copied;
// for 3 rows each 16-byte chunk read once, carried_windows), four N-tiles' products for every
// matrix row, their finish, and the stores, unchecked where the tile lies in the image. The
// steps are unrolled. What made it fast was more warps resident to hide the copies' latency,
// fewer instructions a step, and fewer wavefronts through the L1's load pipe, which bounds it on
// an H200 (run 104), not a deeper pipeline: warps that
// walked on, the next tile's copies in flight, waited longer the longer their walk
// (bench/RESULTS.md, runs 74-85).
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
static_assert(byte_weights(), "the weights are signed bytes (codegen checks them)");

constexpr int kTileRows = gb_matrix_mma::kTileRows;
constexpr int kTileBytes = gb_matrix_mma::kTileBytes;
constexpr int kWarpBytes = gb_matrix_mma::kWarpBytes;
constexpr int kWarps = gb_matrix_mma::kWarps;
constexpr int kRowStride = gb_matrix_mma::kRowStride;
constexpr int kLoadRows = gb_matrix_mma::load_rows(kRadiusY);
constexpr int kBufferBytes = gb_matrix_mma::buffer_bytes(kRadiusY);
constexpr int kReach = kChannels * kRadiusX;
constexpr int kBufferLead = gb_matrix_mma::buffer_lead(kReach);  // buffer byte 0: x0 - this
constexpr int kPieceBytes = gb_matrix_mma::piece_bytes(kReach);  // copied at a time
constexpr int kPieces = gb_matrix_mma::load_pieces(kReach);      // pieces a loaded row
static_assert(gb_matrix_mma::takes(kChannels, kRadiusX, kRadiusY), "codegen checks the reach");
static_assert(GB_BLOCK_THREADS == 32 * kWarps && GB_TILE_W == kTileBytes && GB_TILE_H == kTileRows,
              "warps side by side, a tile each");
static_assert(kPieceBytes * kPieces <= kRowStride, "a loaded row fits its stride");
constexpr bool kAligned = gb_matrix_mma::aligned_windows(kReach);
constexpr int kLeads = kAligned ? 2 : 1;
// Which output byte of a step (from its first) column n of N-tile j is: aligned, 16 (j / 2) +
// 2 (j % 2) + 4 (n / 2) + n % 2 (so lane t's results of N-tiles 2h and 2h + 1 are bytes 16h +
// 4t .. + 3 of its rows, see the top); else 8j + n.
__host__ __device__ constexpr int column_offset(int n) { return kAligned ? 4 * (n / 2) + n % 2 : n; }
__host__ __device__ constexpr int first_output(int j) {
  return kAligned ? 16 * (j / 2) + 2 * (j % 2) : 8 * j;
}
// How many bytes N-tile j's window starts before its first output: two leads aligned (its
// window then starts at 16 (j / 2) - 8 of the step), else one.
__host__ __device__ constexpr int lead_of(int j) { return kAligned ? 8 + 2 * (j % 2) : 12; }
__host__ __device__ constexpr int window_start(int j) { return first_output(j) - lead_of(j); }
static_assert(lead_of(0) >= kReach && lead_of(1) >= kReach &&
                  column_offset(7) + kReach < 32 - lead_of(0) &&
                  column_offset(7) + kReach < 32 - lead_of(1),
              "a window holds its N-tile's outputs and their reach");

// B_j's byte for an input `delta` bytes right of the output (its two's complement bits).
__host__ __device__ constexpr unsigned band_byte(int j, int delta) {
  if (delta % kChannels != 0) return 0u;
  const int i = delta / kChannels + kRadiusX;
  return i < 0 || i >= kSizeX ? 0u : static_cast<unsigned>(weight(j, i)) & 255u;
}
// A lane's B fragment words are windows of 4 consecutive deltas: b0 = B[4t + e][g], e = 0..3,
// the deltas from 4t - lead - column_offset(g); b1 the same 16 further.
// BandWindows::word[j][d - kFirstDelta] packs deltas d .. d + 3 of row j, for every d a lane
// takes.
constexpr int kFirstDelta = -lead_of(1) - column_offset(7);
constexpr int kDeltas = 4 * 3 + 16 - lead_of(0) + 1 - kFirstDelta;
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
// The lane's B fragments: [matrix row][lead: even N-tiles, odd ones][b0, b1].
struct RowWeights {
  unsigned b[kSizeY][kLeads][2];
};
// Every lane's fragments, laid out lane after lane for each matrix row (one 16-byte load a row
// where windows are aligned, 8 bytes else), so that a warp's load of a row is one coalesced read
// of 512 (or 256) bytes: each lane reading its own words of band_windows, 20 scattered loads of a
// word, took the L1 as many wavefronts as the tile's stores (run 104). In global memory, as the
// lanes read different words (constant memory would serialise them).
struct alignas(8 * kLeads) LaneRow {
  unsigned b[kLeads][2];
};
struct LaneWeights {
  LaneRow row[kSizeY][32];
};
__host__ __device__ constexpr LaneWeights make_lane_weights() {
  const BandWindows windows = make_band_windows();
  LaneWeights w{};
  for (int lane = 0; lane < 32; ++lane) {
    const int g = lane >> 2, t = lane & 3;
    for (int j = 0; j < kSizeY; ++j) {
      for (int v = 0; v < kLeads; ++v) {
        const int d = 4 * t - lead_of(v) - column_offset(g) - kFirstDelta;
        w.row[j][lane].b[v][0] = windows.word[j][d];
        w.row[j][lane].b[v][1] = windows.word[j][d + 16];
      }
    }
  }
  return w;
}
__device__ const LaneWeights lane_weights = make_lane_weights();

__device__ __forceinline__ RowWeights row_weights(int lane) {
  RowWeights w;
#pragma unroll
  for (int j = 0; j < kSizeY; ++j) {
    const LaneRow* row = &lane_weights.row[j][lane];
    if constexpr (kLeads == 2) {
      const uint4 q = __ldg(reinterpret_cast<const uint4*>(row));
      w.b[j][0][0] = q.x;
      w.b[j][0][1] = q.y;
      w.b[j][1][0] = q.z;
      w.b[j][1][1] = q.w;
    } else {
      const uint2 q = __ldg(reinterpret_cast<const uint2*>(row));
      w.b[j][0][0] = q.x;
      w.b[j][0][1] = q.y;
    }
  }
  return w;
}

static_assert(!kAligned || (kPieces == 18 && kLoadRows % 2 == 0),
              "aligned: two rows of 16 pieces at a time, then 2 a row (load_tile)");
// One piece of a loaded row, from global to shared memory.
__device__ __forceinline__ void copy_piece(unsigned at, const unsigned char* src) {
  if constexpr (kPieceBytes == 8) {
    cp_async8(at, src);
  } else {
    cp_async16<false>(at, src);
  }
}

// Copies a warp's tile of input rows y0 - ry .. into its buffer: loaded byte x of a row (x = 0 ..
// kPieces kPieceBytes - 1) is image byte column x0 - kBufferLead + x, the border applied. Pieces
// wholly in the image (of rows aligned to a piece) go by cp.async, as one group; the others byte
// by byte through the border rule.
__device__ __forceinline__ void load_tile(unsigned buffer, const unsigned char* __restrict__ in,
                                          int pitch, bool aligned, int x0, int y0, int width,
                                          int height, int lane) {
  const int row_bytes = width * kChannels;
  const int first_x = x0 - kBufferLead;
  if (aligned && y0 - kRadiusY >= 0 && y0 + kTileRows + kRadiusY <= height && first_x >= 0 &&
      first_x + kPieceBytes * kPieces <= row_bytes) {
    // Wholly inside, as most tiles are: the same pieces of every such tile, no border rule.
    const unsigned char* first = in + static_cast<size_t>(y0 - kRadiusY) * pitch + first_x;
    if constexpr (kAligned) {
      // 18 pieces of 8 a row: the lanes take the first 16 of two rows at a time (lane / 16 the
      // row), then the last two of 16 rows at a time, with no division for a piece's place.
      const unsigned char* src = first + static_cast<size_t>(lane >> 4) * pitch + 8 * (lane & 15);
      const unsigned at = buffer + (lane >> 4) * kRowStride + 8 * (lane & 15);
#pragma unroll
      for (int r = 0; r < kLoadRows; r += 2, src += 2 * static_cast<size_t>(pitch))
        copy_piece(at + r * kRowStride, src);
#pragma unroll
      for (int r0 = 0; r0 < kLoadRows; r0 += 16) {
        const int r = r0 + (lane >> 1), c = 16 + (lane & 1);
        if (r < kLoadRows)
          copy_piece(buffer + r * kRowStride + 8 * c, first + static_cast<size_t>(r) * pitch + 8 * c);
      }
    } else {
#pragma unroll
      for (int i = 0; i < (kLoadRows * kPieces + 31) / 32; ++i) {
        const int n = lane + 32 * i;
        const int r = n / kPieces, c = n - (n / kPieces) * kPieces;
        if (n < kLoadRows * kPieces)
          copy_piece(buffer + r * kRowStride + 16 * c,
                     first + static_cast<size_t>(r) * pitch + 16 * c);
      }
    }
    cp_async_commit();
    return;
  }
  for (int n = lane; n < kLoadRows * kPieces; n += 32) {
    const int r = n / kPieces;
    const int c = n - r * kPieces;
    const int y = y0 - kRadiusY + r;
    const int x = first_x + kPieceBytes * c;
    const int sy = border_index(y, height);
    const unsigned at = buffer + r * kRowStride + kPieceBytes * c;
    if (aligned && sy >= 0 && x >= 0 && x + kPieceBytes <= row_bytes) {
      copy_piece(at, in + static_cast<size_t>(sy) * pitch + x);
    } else {
      unsigned v[4] = {0u, 0u, 0u, 0u};
#pragma unroll
      for (int s = 0; s < kPieceBytes; ++s) {
        v[s / 4] |= load_sample(in, pitch, x + s, y, width, height) << (8 * (s % 4));
      }
      if constexpr (kPieceBytes == 8) {
        sts64(at, v[0], v[1]);
      } else {
        sts128(at, v);
      }
    }
  }
  cp_async_commit();
}

// The A fragments of matrix row `dy` of a step (row_at: the lane's address of its words at that
// row, the step's first output; see the kernel). Aligned windows: N-tiles 0 and 1 read the one
// from 8 bytes before the step's first output, 2 and 3 the one from 8 after, each one ldmatrix
// (lane 8m + i: row i + 8 (m % 2), 16-byte half m / 2) into registers of its own.
static_assert(!kAligned || (window_start(0) == -8 && window_start(1) == -8 &&
                            window_start(2) == 8 && window_start(3) == 8),
              "the windows");
__device__ __forceinline__ void aligned_windows(unsigned (&a)[2][4], unsigned row_at) {
  ldmatrix_x4(a[0], row_at - 8);
  ldmatrix_x4(a[1], row_at + 8);
}
// The same windows with each 16-byte chunk read once (kCarryChunks): fragment registers 0-1 are
// a chunk's rows 0-7 and 8-15, 2-3 the next chunk's, so the two windows share their middle chunk
// (the second's 0-1 are the first's 2-3), and the second's last chunk is the next step's first,
// kept in `carry` for it. One ldmatrix.x4 a matrix row a step (the first step an .x2 more) where
// aligned_windows takes two: half the ldmatrix wavefronts through the L1's pipe, which bounds
// the kernel (runs 104-106); the carried chunks cost two registers a matrix row.
constexpr bool kCarryChunks = kAligned && gb_matrix_mma::carries_chunks(kRadiusY);
__device__ __forceinline__ void carried_windows(unsigned (&a)[2][4], unsigned (&carry)[2],
                                                unsigned row_at, bool first) {
  ldmatrix_x4(a[1], row_at + 8);
  if (first) {
    unsigned c[2];
    ldmatrix_x2(c, row_at - 8);  // lanes 0-15: the chunk from 8 bytes before the step
    a[0][0] = c[0];
    a[0][1] = c[1];
  } else {
    a[0][0] = carry[0];
    a[0][1] = carry[1];
  }
  a[0][2] = a[1][0];
  a[0][3] = a[1][1];
  carry[0] = a[1][2];
  carry[1] = a[1][3];
}
// Else N-tile j's window starts 12 bytes before its outputs, in 32-bit loads (a0: row g, bytes
// 4t ..; a1: row g + 8; a2, a3: 16 bytes on), one N-tile at a time (fewer live registers).
__device__ __forceinline__ void word_fragment(unsigned (&a)[4], unsigned row_at, int j) {
  const unsigned at = row_at + window_start(j);
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

// The alpha bytes of 4 consecutive outputs from a multiple of 4 bytes: channel C - 1.
constexpr bool kKeepAlpha = GB_KEEP_ALPHA != 0;
static_assert(!kKeepAlpha || kChannels == 2 || kChannels == 4, "alpha is the last of 2 or 4");
constexpr unsigned kAlphaMask = kChannels == 4 ? 0xff000000u : 0xff00ff00u;

// Every lane stores 8 consecutive bytes of each of its two rows a step (one 64-bit store, whose
// 32 bytes of a row lie in one sector: 32-bit stores, one word of each of a lane's two 16-byte
// halves, cost the L1 twice the requests, and with the loads of the windows those requests are
// what a step waits on). The lane's first byte of them, from the step's: aligned (see
// finish_step), 4t where t is even and 4t + 12 where it is odd; else 8t.
__host__ __device__ constexpr int lane_byte_of(int t) {
  return kAligned ? (t & 1 ? 4 * t + 12 : 4 * t) : 8 * t;
}

// Stores the lane's bytes of a step at the image's edges: 8 from byte column x of rows y and y +
// 8, only what lies in the image (a row may end inside them). Not unrolled: few steps take it,
// and unrolled it would be most of the kernel's code.
__device__ __forceinline__ void store_edge(unsigned char* __restrict__ out, int pitch, bool aligned,
                                           int x, int y, int row_bytes, int height,
                                           const unsigned (&result)[2][2]) {
#pragma unroll 1
  for (int half = 0; half < 2; ++half) {
    const int row = y + 8 * half;
    const unsigned w0 = half ? result[1][0] : result[0][0];
    const unsigned w1 = half ? result[1][1] : result[0][1];
    if (row >= height || x >= row_bytes) continue;
    unsigned char* dst = out + static_cast<size_t>(row) * pitch + x;
    if (aligned && x + 8 <= row_bytes) {
      store_global8(dst, w0, w1);
      continue;
    }
#pragma unroll 1
    for (int s = 0; s < 8 && x + s < row_bytes; ++s)
      dst[s] = static_cast<unsigned char>((s < 4 ? w0 : w1) >> (8 * (s % 4)));
  }
}

// The lane's finished bytes of a step: result[half], rows g (half 0) and g + 8, 8 consecutive
// bytes from lane_byte_of(t).
__device__ __forceinline__ void finish_step(const unsigned (&acc)[4][4], int t,
                                            unsigned (&result)[2][2]) {
  constexpr Policy::Numbers numbers = GB_FINISH_NUMBERS;  // constants: folded into the finish
  if constexpr (kAligned) {
    // N-tiles 2h and 2h + 1 hold bytes 16h + 4t, + 1 and 16h + 4t + 2, + 3 (first_output): a
    // word w_h of each row. Lanes t and t ^ 1 swap one word: an even lane keeps its w_0 and
    // takes its partner's (bytes 4t + 4 ..), an odd one takes its partner's w_1 before its own.
    const bool odd = (t & 1) != 0;
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      unsigned w[2];
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const unsigned(&a)[4] = acc[2 * h];
        const unsigned(&b)[4] = acc[2 * h + 1];
        w[h] = Policy::finish_word(static_cast<int>(a[2 * half]), static_cast<int>(a[2 * half + 1]),
                                   static_cast<int>(b[2 * half]),
                                   static_cast<int>(b[2 * half + 1]), numbers);
      }
      const unsigned got = __shfl_xor_sync(0xffffffffu, odd ? w[0] : w[1], 1);
      result[half][0] = odd ? got : w[0];
      result[half][1] = odd ? w[1] : got;
    }
  } else {
    unsigned w[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      w[j] = Policy::finish_word(static_cast<int>(acc[j][0]), static_cast<int>(acc[j][1]),
                                 static_cast<int>(acc[j][2]), static_cast<int>(acc[j][3]), numbers);
    }
    unit_rows(w, t, result);  // the transposition: lane t's bytes 8t .. of both rows
  }
}

// The warp's 16 rows x kWarpBytes of its tile: the lane's outputs of rows y and y + 8 from byte
// column x on, a step of 32 bytes at a time. lane_at, alpha_at: the lane's A words
// and its input bytes under its outputs at the first step (shared addresses).
__device__ __forceinline__ void filter_tile(unsigned lane_at, unsigned alpha_at,
                                            const RowWeights& weights, Lane l,
                                            unsigned char* __restrict__ out, int pitch,
                                            bool out_aligned, int x, int y, int row_bytes,
                                            int height) {
  // Both of the lane's rows and the whole tile across in the image: its stores need no checks.
  const bool inside = out_aligned && y + 8 < height && x + kWarpBytes <= row_bytes;
  const int lane_byte = lane_byte_of(l.t);
  unsigned char* lane_out =
      out + static_cast<size_t>(y < height ? y : 0) * pitch + (inside ? x + lane_byte : 0);
  const size_t eight_rows = 8 * static_cast<size_t>(pitch);
  unsigned carry[kCarryChunks ? kSizeY : 1][2];  // each matrix row's last chunk (carried_windows)
#pragma unroll
  for (int u = 0; u < kWarpBytes / 32; ++u, x += 32, lane_out += 32) {
    if (x >= row_bytes) break;  // the same for the whole warp
    unsigned acc[4][4];
#pragma unroll
    for (int dy = 0; dy < kSizeY; ++dy) {
      const unsigned row_at = lane_at + 32 * u + dy * kRowStride;
      if constexpr (kAligned) {
        unsigned a[2][4];
        if constexpr (kCarryChunks) {
          carried_windows(a, carry[dy], row_at, u == 0);
        } else {
          aligned_windows(a, row_at);
        }
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          if (dy == 0) {
            row_product<true>(acc[j], a[j / 2], weights.b[dy][j & 1]);
          } else {
            row_product<false>(acc[j], a[j / 2], weights.b[dy][j & 1]);
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
    unsigned result[2][2];
    finish_step(acc, l.t, result);
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
      store_edge(out, pitch, out_aligned, x + lane_byte, y, row_bytes, height, result);
    }
  }
}

}  // namespace gb

extern "C" __global__ void __launch_bounds__(GB_BLOCK_THREADS,
                                              gb_matrix_mma::min_blocks(gb::kChannels, gb::kRadiusY))
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
      ((reinterpret_cast<size_t>(in) | static_cast<size_t>(in_pitch)) & (kPieceBytes - 1)) == 0;
  const unsigned buffer = shared_address(buffers[warp]);
  load_tile(buffer, in, in_pitch, in_aligned, x0, y0, width, height, lane);
  const Lane l{lane >> 2, lane & 3};
  const RowWeights weights = row_weights(lane);  // while the copies are in flight
  // The lane's offset of its A words at the first step, matrix row 0 (whose first output is
  // buffer byte kBufferLead): where windows are aligned, ldmatrix's row (lane % 8 + 8 ((lane /
  // 8) % 2)) and half (lane / 16); else row g, word t. And of the input bytes under its outputs
  // (alpha kept): row g + ry, its first word's byte.
  const int lane_row = kAligned ? (lane & 7) + 8 * ((lane >> 3) & 1) : l.g;
  const int lane_byte = kAligned ? 16 * (lane >> 4) : 4 * l.t;
  const unsigned output_at = kBufferLead;  // the buffer's byte of the warp's first output
  const unsigned lane_offset = lane_row * kRowStride + output_at + lane_byte;
  const unsigned alpha_offset = (l.g + kRadiusY) * kRowStride + output_at + lane_byte_of(l.t);
  const bool out_aligned =
      ((reinterpret_cast<size_t>(out) | static_cast<size_t>(out_pitch)) & 7) == 0;
  cp_async_wait<0>();
  __syncwarp();
  filter_tile(buffer + lane_offset, buffer + alpha_offset, weights, l, out, out_pitch, out_aligned,
              x0, y0 + l.g, row_bytes, height);
}
