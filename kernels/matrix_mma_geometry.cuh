// matrix_mma_geometry.cuh — the shapes of the dense matrix on the tensor cores (matrix_mma.cu),
// written once and compiled twice: by the host compiler for codegen, which decides from them
// which matrices the kernel takes and sizes its shared memory, and by NVRTC for the kernel, which
// lays its tile out by them. Plain constexpr C++.
//
#ifndef GB_MATRIX_MMA_GEOMETRY_INCLUDED
#define GB_MATRIX_MMA_GEOMETRY_INCLUDED 1
#ifndef GB_HOST_DEVICE_INCLUDED
#include "host_device.cuh"
#endif

namespace gb_matrix_mma {

// Each warp filters one tile of kTileRows x kWarpBytes output bytes: it copies the tile's input
// rows with the reach (up to kPad bytes each side, rows kRowStride apart; buffer_lead below)
// into its own buffer, waits, and multiplies. A block is kWarps such tiles side by side, with no block barrier. A warp that
// walked down a column of tiles, the next one's copies in flight while it multiplied, was slower
// the longer its walk, and so was a block walking a strip (bench/RESULTS.md, runs 74-84): what
// hides the copies' latency is more warps resident (min_blocks), not a walk.
constexpr int kWarps = 4;
constexpr int kWarpBytes = 128;
constexpr int kTileBytes = kWarps * kWarpBytes;  // a block's bytes across (codegen's tile width)
constexpr int kTileRows = 16;                    // a block's rows (codegen's tile height)
constexpr int kPad = 16;
// 11 pieces of 16 bytes (44 words): the 8 rows of an ldmatrix land on 8 distinct 16-byte bank
// groups (11 r mod 8), and 32-bit loads of rows g = 0..7, words t = 0..3 on 32 distinct banks
// (12 g + t mod 32).
constexpr int kRowStride = kWarpBytes + 2 * kPad + 16;
// An N-tile's 8 outputs and their reach, radius x channels bytes each side, lie in one k32
// window of 32 input bytes: reach <= 12. Up to 8 bytes, windows start on 16-byte boundaries
// (ldmatrix); beyond, on 4-byte ones (32-bit loads).
constexpr int kMaxReach = 12;
constexpr int kMaxAlignedReach = 8;
// Rows of the matrix: each row's weights stay in registers as B fragments (two or four words).
constexpr int kMaxRadiusY = 4;

// Blocks an SM holds at once, the register budget the kernel is compiled for (__launch_bounds__):
// 8 blocks of 4 warps, 64 registers a thread (runs 82-83: fewer warps left the copies' latency
// showing, more spilled); 10 blocks, 48 registers, for a matrix of 5 rows on gray and RGB, where
// ptxas spills a few bytes outside the step and the extra warps made it faster (run 102, on an
// H200; 3 rows and RGBA were slower, 7 rows and more spill in the step: bench/RESULTS.md).
GB_HD_CONSTEXPR int min_blocks(int channels, int radius_y) {
  return radius_y == 2 && (channels == 1 || channels == 3) ? 10 : 8;
}

// Whether each 16-byte chunk of the tile goes through ldmatrix once (matrix_mma.cu's
// carried_windows), two registers a matrix row more: for 3 rows, which then fit 64 registers
// (unspilled where the finish does not divide; 24 bytes of spill loads where it does, and as
// fast as without, run 106); 5 rows spilled more, at 48 registers and at 64, and ran slower
// (run 105).
GB_HD_CONSTEXPR bool carries_chunks(int radius_y) { return radius_y == 1; }

GB_HD_CONSTEXPR bool takes(int channels, int radius_x, int radius_y) {
  return channels * radius_x <= kMaxReach && radius_y <= kMaxRadiusY;
}
GB_HD_CONSTEXPR bool aligned_windows(int reach) { return reach <= kMaxAlignedReach; }
// The image bytes a warp's buffer holds before its first output x0: where windows are aligned
// they start 8 bytes before a pair of N-tiles' outputs (matrix_mma.cu), so 8, and its rows are
// copied in pieces of 8 bytes (the buffer's 16-byte boundaries, where ldmatrix reads, are 8 bytes
// off the image's); else kPad, in pieces of 16.
GB_HD_CONSTEXPR int buffer_lead(int reach) { return aligned_windows(reach) ? 8 : kPad; }
GB_HD_CONSTEXPR int piece_bytes(int reach) { return aligned_windows(reach) ? 8 : 16; }
// Pieces of a loaded row: the windows reach 8 bytes past the warp's outputs (aligned), else kPad.
GB_HD_CONSTEXPR int load_pieces(int reach) {
  return (kWarpBytes + (aligned_windows(reach) ? 16 : 2 * kPad)) / piece_bytes(reach);
}
GB_HD_CONSTEXPR int load_rows(int radius_y) { return kTileRows + 2 * radius_y; }
GB_HD_CONSTEXPR int buffer_bytes(int radius_y) { return load_rows(radius_y) * kRowStride; }
GB_HD_CONSTEXPR int shared_bytes(int radius_y) { return kWarps * buffer_bytes(radius_y); }

}  // namespace gb_matrix_mma

#endif  // GB_MATRIX_MMA_GEOMETRY_INCLUDED
