// matrix_dp4a.cu — a convolution matrix not of rank one on 8-bit images: four weights times four
// neighbouring samples of a channel in one instruction (dp4a: four byte products summed into a
// 32-bit integer), where matrix_dense.cu takes one multiply-add for each. Weights wider than a
// byte are split into byte planes (their two's complement: the top byte signed, the others
// unsigned), one sum a plane, and S = sum of plane p's times 2^(8p), mod 2^32: the same integer,
// since |S| < 2^31 (Matrix8's bound). The sum is exact (no order matters), and each output is
// finished by Matrix8::finish_word (four of finish_sample, the CPU twin's function, at once), so
// the bytes are the CPU's.
//
// A block's tile is GB_TILE_W (128) pixels across: its 32 x 8 threads each compute four
// neighbouring pixels (a quad) of kRows rows. The block loads the tile with the matrix's reach
// around it into shared memory as one plane of bytes per channel (byte_planes.cuh's split), the
// border rule applied once per loaded pixel: four samples of a channel that neighbour in the
// image are then one word. For each tile row a thread loads the few words its quad's windows
// span, shifts them into every window (the four bytes under a chunk of four weights), and adds
// each window's dp4a into every output of its quad that the row meets. A row of the matrix is
// taken in chunks of four weights; the last chunk ends at the row's last weight (its first
// weights, which an earlier chunk took, are zero in it), so the windows reach no further than
// the matrix does.
//
// Small matrices (up to 15x15 of byte weights: gb_dp4a::kUnrolledChunkRows) are unrolled whole:
// every chunk's word is an immediate, and chunks whose weights are all zero cost nothing. Larger
// ones (up to 31x31, or wider weights) take the tile's rows in a loop, the chunks' words from
// constant memory (a warp reads one word at a time: a broadcast), so their code, and the
// compiler's time, stays small.
//
// codegen emits: prelude (GB_POLICY Matrix8, the weights in GB_MATRIX, the finish numbers
// GB_FINISH_NUMBERS, GB_KEEP_ALPHA, the border pixel, GB_TILE_W x GB_TILE_H pixels a block),
// common.cuh, arithmetic.cuh, byte_planes.cuh, dp4a_geometry.cuh, matrix_weights.cuh,
// matrix_dp4a.cu.
#ifndef GB_COMMON_INCLUDED
#include "common.cuh"
#endif
#ifndef GB_ARITHMETIC_INCLUDED
#include "arithmetic.cuh"
#endif
#ifndef GB_BYTE_PLANES_INCLUDED
#include "byte_planes.cuh"
#endif
#ifndef GB_DP4A_GEOMETRY_INCLUDED
#include "dp4a_geometry.cuh"
#endif

#ifndef GB_POLICY
#define GB_POLICY Matrix8
#define GB_MATRIX {-1, -1, -1, -1, 8, -1, -1, -1, -1}
#define GB_FINISH_NUMBERS {1, 0, 1, 4080}
#define GB_KEEP_ALPHA 0
#define GB_BORDER_PIXEL {0, 0, 0, 0}
#define GB_TILE_W 128
#define GB_TILE_H 32
#define GB_BLOCK_THREADS 256
#endif
// The weights (weight(j, i): each an immediate once the loops are unrolled).
#ifndef GB_MATRIX_WEIGHTS_INCLUDED
#include "matrix_weights.cuh"
#endif

namespace gb {

typedef gb_arith::GB_POLICY Policy;
static_assert(sizeof(Policy::Sample) == 1, "8-bit samples");

constexpr int kThreadsX = 32;  // a warp across: its threads' words are neighbours in a row
constexpr int kThreadsY = GB_BLOCK_THREADS / kThreadsX;
constexpr int kTileW = GB_TILE_W;
constexpr int kTileH = GB_TILE_H;
static_assert(kTileW == gb_dp4a::kTileW && kTileW == 4 * kThreadsX, "a quad of pixels a thread");
constexpr int kRows = kTileH / kThreadsY;  // each thread's output rows, one under another
static_assert(kRows * kThreadsY == kTileH, "whole rows of threads");
static_assert(kRadiusX <= gb_dp4a::kMaxRadius && kRadiusY <= gb_dp4a::kMaxRadius,
              "the planes fit shared memory");

constexpr int kChunks = gb_dp4a::chunks(kSizeX);
constexpr int kPlanes = weight_bytes();  // the weights' byte planes: a dp4a each a chunk
// Unrolled whole, or the tile's rows in a loop (the header's comment).
constexpr bool kLooped = kSizeY * kChunks * kPlanes > gb_dp4a::kUnrolledChunkRows;
__host__ __device__ constexpr int chunk_start(int m) { return gb_dp4a::chunk_start(kSizeX, m); }
constexpr int kReachLeft = gb_dp4a::reach_left(kRadiusX);
constexpr int kReachRight = gb_dp4a::reach_right(kRadiusX);
constexpr int kPadLeft = gb_dp4a::pad_left(kRadiusX);
constexpr int kPlaneWords = gb_dp4a::plane_words(kRadiusX);
constexpr int kLoadH = kTileH + 2 * kRadiusY;
// The words of a row that a quad's windows span: from kFirstWord (relative to the quad's own).
constexpr int kFirstWord = -kPadLeft / 4 + (kPadLeft - kReachLeft) / 4;
constexpr int kSpanWords = (kPadLeft + kReachRight) / 4 - (kPadLeft - kReachLeft) / 4 + 1;

// Chunk m of matrix row j in byte plane p as a dp4a operand: byte b is byte p of weight
// chunk_start(m) + b, or 0 where an earlier chunk took that weight (or it lies before the row:
// kSizeX < 4). Made once, as a table the unrolled loops index by constants and the looped ones
// read from constant memory.
struct ChunkWords {
  int word[kSizeY][kChunks][kPlanes];
};
__host__ __device__ constexpr ChunkWords chunk_words() {
  ChunkWords t{};
  for (int j = 0; j < kSizeY; ++j) {
    for (int m = 0; m < kChunks; ++m) {
      for (int p = 0; p < kPlanes; ++p) {
        unsigned word = 0;
        for (int b = 0; b < 4; ++b) {
          const int i = chunk_start(m) + b;
          const bool mine = i >= 0 && (m + 1 < kChunks || i >= 4 * (kChunks - 1));
          if (mine) word |= (static_cast<unsigned>(weight(j, i)) >> (8 * p) & 0xffu) << (8 * b);
        }
        t.word[j][m][p] = static_cast<int>(word);
      }
    }
  }
  return t;
}
__device__ __forceinline__ int chunk_word(int j, int m, int p) {
  constexpr ChunkWords table = chunk_words();
  return table.word[j][m][p];
}
__constant__ ChunkWords chunk_table = chunk_words();  // the looped kernel's
constexpr bool kKeepAlpha = GB_KEEP_ALPHA;
constexpr int kFiltered = kKeepAlpha ? kChannels - 1 : kChannels;
// The channels' loop unrolled where its code stays small; else one channel at a time.
constexpr bool kUnrollChannels =
    !kLooped && kRows * 4 * kSizeY * kChunks * kPlanes * kFiltered <= 2048;

__constant__ unsigned char border_pixel[4] = GB_BORDER_PIXEL;

// Four u8 samples times four bytes of byte plane p, plus acc: the top plane's bytes signed, the
// others' unsigned. (dp4a's signed form, the samples stored less 128 and each sum started at 128
// times the weights' sum, ran about as fast on an H100: bench/RESULTS.md; the plain samples kept.)
__device__ __forceinline__ int dp4a(int p, unsigned samples, int weights, int acc) {
  int d;
  if (p == kPlanes - 1) {  // p is a constant in the unrolled loops: one of the two remains
    asm("dp4a.u32.s32 %0, %1, %2, %3;" : "=r"(d) : "r"(samples), "r"(weights), "r"(acc));
  } else {
    asm("dp4a.u32.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(samples), "r"(weights), "r"(acc));
  }
  return d;
}

// The matrix's sum from its planes' sums: plane p's times 2^(8p), mod 2^32 (exact: |S| < 2^31).
__device__ __forceinline__ int plane_sum(const int (&sums)[kPlanes]) {
  unsigned s = 0;
#pragma unroll
  for (int p = 0; p < kPlanes; ++p) s += static_cast<unsigned>(sums[p]) << (8 * p);
  return static_cast<int>(s);
}

// Fills the block's planes: word g of plane k's row r holds channel k of image pixels x0 -
// kPadLeft + 4g .. +3 of image row y0 - ry + r, the border applied.
__device__ __forceinline__ void load_planes(unsigned (*planes)[kLoadH][kPlaneWords],
                                            const unsigned char* __restrict__ in, int pitch, int x0,
                                            int y0, int width, int height) {
  // Device images' rows are 16-byte aligned (common.cuh); the byte path also keeps a caller's
  // image of odd pitch correct, as pixel_tile.cuh's does.
  const bool aligned = ((reinterpret_cast<size_t>(in) | static_cast<size_t>(pitch)) & 3) == 0;
  for (int n = threadIdx.x; n < kLoadH * kPlaneWords; n += GB_BLOCK_THREADS) {
    const int r = n / kPlaneWords;
    const int g = n - r * kPlaneWords;
    const int x = x0 - kPadLeft + 4 * g;  // the quad's first pixel
    const int sy = border_index(y0 - kRadiusY + r, height);
    unsigned row[kChannels];
    if (aligned && sy >= 0 && x >= 0 && x + 4 <= width) {
      const unsigned* src = reinterpret_cast<const unsigned*>(
          in + static_cast<size_t>(sy) * pitch + static_cast<size_t>(x) * kChannels);
#pragma unroll
      for (int k = 0; k < kChannels; ++k) row[k] = __ldg(src + k);
    } else {  // at the image's edges: pixel by pixel through the border rule
#pragma unroll
      for (int k = 0; k < kChannels; ++k) row[k] = 0;
#pragma unroll
      for (int p = 0; p < 4; ++p) {
        const int sx = border_index(x + p, width);
        const unsigned char* pixel =
            (sy < 0 || sx < 0) ? border_pixel : in + static_cast<size_t>(sy) * pitch + sx * kChannels;
#pragma unroll
        for (int k = 0; k < kChannels; ++k) {
          const int byte = p * kChannels + k;  // its place among the quad's interleaved bytes
          row[byte / 4] |= static_cast<unsigned>(pixel[k]) << (8 * (byte % 4));
        }
      }
    }
    unsigned plane[kChannels];
    gb_bytes::split<kChannels>(row, plane);
#pragma unroll
    for (int k = 0; k < kChannels; ++k) planes[k][r][g] = plane[k];
  }
}

// The window of pixel c of the quad under chunk m: four plane bytes from `words` (kSpanWords of
// them, from the quad's kFirstWord).
__device__ __forceinline__ unsigned window(const unsigned (&words)[kSpanWords], int c, int m) {
  const int e = kPadLeft + c - kRadiusX + chunk_start(m);  // plane byte, from the quad's word
  const int w = e / 4 - (kPadLeft / 4 + kFirstWord);       // 0 <= w < kSpanWords
  const int shift = e % 4;
  return shift == 0 ? words[w] : __funnelshift_r(words[w], words[w + 1], 8 * shift);
}

// Where a row of the matrix is 4k + 1 weights (5, 9, 13), its last chunk holds one weight, and a
// dp4a of it does a quarter of a dp4a's work. Then, in the unrolled kernel, the rows' last weights
// go four matrix rows at a time instead: pixel c's column word holds the plane byte under the last
// weight in four tile rows one under another (one byte permute a tile row slides it down), and
// one dp4a with the four rows' last weights (last_column_word) takes what four took. The matrix
// rows past the last four-row group keep their chunk.
constexpr bool kGatherLast = !kLooped && kSizeX % 4 == 1 && kSizeX >= 5 && kSizeY >= 4;
// The matrix rows whose last weights are gathered: whole groups of four.
constexpr int kGathered = kGatherLast ? kSizeY / 4 * 4 : 0;
__host__ __device__ constexpr int last_column_word(int group, int p) {
  unsigned word = 0;
  for (int i = 0; i < 4; ++i)
    word |= (static_cast<unsigned>(weight(4 * group + i, kSizeX - 1)) >> (8 * p) & 0xffu) << (8 * i);
  return static_cast<int>(word);
}
// The plane byte under pixel c's last weight: word and byte among a tile row's kSpanWords.
__host__ __device__ constexpr int last_byte(int c) { return kPadLeft + c - kRadiusX + kSizeX - 1; }
__host__ __device__ constexpr int last_word(int c) {
  return last_byte(c) / 4 - (kPadLeft / 4 + kFirstWord);
}

// The kSpanWords words of tile row t that the thread's quad's windows span.
__device__ __forceinline__ void span_words(const unsigned (*plane)[kPlaneWords], int quad, int t,
                                           unsigned (&words)[kSpanWords]) {
  const unsigned* source = plane[t] + kPadLeft / 4 + quad + kFirstWord;
#pragma unroll
  for (int w = 0; w < kSpanWords; ++w) words[w] = source[w];
}

// Channel k's sums of the thread's quad, kRows rows from tile row `row0`, every loop unrolled:
// sum[p][r][c] plane p's for output row r, pixel c.
__device__ __forceinline__ void sum_unrolled(const unsigned (*plane)[kPlaneWords], int quad,
                                             int row0, int (&sum)[kPlanes][kRows][4]) {
  unsigned column[4] = {0u, 0u, 0u, 0u};  // kGatherLast: pixel c's last column, four tile rows
#pragma unroll
  for (int t = 0; t < kRows + kSizeY - 1; ++t) {  // tile rows; output r meets matrix row t - r
    unsigned words[kSpanWords];
    span_words(plane, quad, row0 + t, words);
#pragma unroll
    for (int m = 0; m < kChunks; ++m) {
#pragma unroll
      for (int c = 0; c < 4; ++c) {
        const unsigned samples = window(words, c, m);
#pragma unroll
        for (int r = 0; r < kRows; ++r) {
          const int j = t - r;
          const bool gathered = m == kChunks - 1 && j < kGathered;
          if (j < 0 || j >= kSizeY || gathered) continue;
#pragma unroll
          for (int p = 0; p < kPlanes; ++p) {
            if (chunk_word(j, m, p) != 0)
              sum[p][r][c] = dp4a(p, samples, chunk_word(j, m, p), sum[p][r][c]);
          }
        }
      }
    }
    if constexpr (kGatherLast) {
#pragma unroll
      for (int c = 0; c < 4; ++c) {
        // Bytes 1-3 down, this tile row's byte in at the top: tile rows t - 3 .. t.
        column[c] = __byte_perm(column[c], words[last_word(c)],
                                0x0321u | static_cast<unsigned>(4 + last_byte(c) % 4) << 12);
#pragma unroll
        for (int r = 0; r < kRows; ++r) {
          const int first = t - 3 - r;  // the matrix row of the column word's first byte
          if (first < 0 || first % 4 != 0 || first >= kGathered) continue;
#pragma unroll
          for (int p = 0; p < kPlanes; ++p) {
            const int w = last_column_word(first / 4, p);
            if (w != 0) sum[p][r][c] = dp4a(p, column[c], w, sum[p][r][c]);
          }
        }
      }
    }
  }
}

// sum_unrolled's sums with the tile's rows in a loop: each tile row's windows are made once (a
// funnel shift each) and added into every output row it meets, the chunks' words from constant
// memory.
__device__ __forceinline__ void sum_looped(const unsigned (*plane)[kPlaneWords], int quad, int row0,
                                           int (&sum)[kPlanes][kRows][4]) {
#pragma unroll 1
  for (int t = 0; t < kRows + kSizeY - 1; ++t) {
    unsigned words[kSpanWords];
    span_words(plane, quad, row0 + t, words);
    unsigned samples[kChunks][4];
#pragma unroll
    for (int m = 0; m < kChunks; ++m) {
#pragma unroll
      for (int c = 0; c < 4; ++c) samples[m][c] = window(words, c, m);
    }
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
      const int j = t - r;  // the same in every thread: a uniform branch, a broadcast read
      if (j < 0 || j >= kSizeY) continue;
#pragma unroll
      for (int m = 0; m < kChunks; ++m) {
#pragma unroll
        for (int p = 0; p < kPlanes; ++p) {
          const int w = chunk_table.word[j][m][p];
#pragma unroll
          for (int c = 0; c < 4; ++c) sum[p][r][c] = dp4a(p, samples[m][c], w, sum[p][r][c]);
        }
      }
    }
  }
}

// Channel k's outputs of the thread's quad, kRows rows from tile row `row0`, finished: a word
// per row, byte c the quad's pixel c.
__device__ __forceinline__ void filter_channel(const unsigned (*plane)[kPlaneWords], int quad,
                                               int row0, unsigned (&result)[kRows]) {
  int sum[kPlanes][kRows][4];
#pragma unroll
  for (int p = 0; p < kPlanes; ++p) {
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
#pragma unroll
      for (int c = 0; c < 4; ++c) sum[p][r][c] = 0;
    }
  }
  if constexpr (kLooped) {
    sum_looped(plane, quad, row0, sum);
  } else {
    sum_unrolled(plane, quad, row0, sum);
  }
  constexpr Policy::Numbers numbers = GB_FINISH_NUMBERS;  // constants: folded into the finish
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    int s[4];
#pragma unroll
    for (int c = 0; c < 4; ++c) {
      int planes[kPlanes];
#pragma unroll
      for (int p = 0; p < kPlanes; ++p) planes[p] = sum[p][r][c];
      s[c] = plane_sum(planes);
    }
    result[r] = Policy::finish_word(s[0], s[1], s[2], s[3], numbers);
  }
}

}  // namespace gb

extern "C" __global__ void __launch_bounds__(GB_BLOCK_THREADS)
    gb_matrix_kernel(const unsigned char* __restrict__ in, int in_pitch,
                     unsigned char* __restrict__ out, int out_pitch, int width, int height) {
  using namespace gb;
  __shared__ unsigned planes[kChannels][kLoadH][kPlaneWords];
  in = layer_image(in, in_pitch, height);  // this block's image of a stack
  out = layer_image(out, out_pitch, height);
  const int x0 = blockIdx.x * kTileW;
  const int y0 = blockIdx.y * kTileH;
  load_planes(planes, in, in_pitch, x0, y0, width, height);
  __syncthreads();
  const int quad = threadIdx.x % kThreadsX;
  const int row0 = threadIdx.x / kThreadsX * kRows;  // its first output row of the tile
  const int x = x0 + 4 * quad;
  if (x >= width || y0 + row0 >= height) return;
  unsigned result[kChannels][kRows];
  if constexpr (kUnrollChannels) {
#pragma unroll
    for (int k = 0; k < kFiltered; ++k) filter_channel(planes[k], quad, row0, result[k]);
  } else {
#pragma unroll 1
    for (int k = 0; k < kFiltered; ++k) filter_channel(planes[k], quad, row0, result[k]);
  }
  if constexpr (kKeepAlpha) {  // alpha as it was: the plane's centre words
#pragma unroll
    for (int r = 0; r < kRows; ++r)
      result[kChannels - 1][r] = planes[kChannels - 1][row0 + r + kRadiusY][kPadLeft / 4 + quad];
  }
  const bool aligned = ((reinterpret_cast<size_t>(out) | static_cast<size_t>(out_pitch)) & 3) == 0;
  const int pixels = min(4, width - x);
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    if (y0 + row0 + r >= height) break;
    unsigned plane[kChannels], row[kChannels];
#pragma unroll
    for (int k = 0; k < kChannels; ++k) plane[k] = result[k][r];
    gb_bytes::merge<kChannels>(plane, row);
    unsigned char* dst =
        out + static_cast<size_t>(y0 + row0 + r) * out_pitch + static_cast<size_t>(x) * kChannels;
    if (aligned && pixels == 4) {
#pragma unroll
      for (int k = 0; k < kChannels; ++k) reinterpret_cast<unsigned*>(dst)[k] = row[k];
    } else {  // the image's last pixels, or rows not whole words apart
#pragma unroll
      for (int b = 0; b < 4 * kChannels; ++b) {
        if (b < pixels * kChannels) dst[b] = static_cast<unsigned char>(row[b / 4] >> (8 * (b % 4)));
      }
    }
  }
}
